// The frame of a virtualized grid, shared by the table and the event list: which rows are in
// view, the spacer's height, the grid's aria-rowcount (rows plus the header row), and enough
// row slots (DOM rows reused as the view scrolls) for them.
import { visibleRange, type Viewport, type VisibleRange } from '../model/virtual_scroll';
import { setAttr } from './dom';

export function layoutRows<Slot>(
  viewport: Viewport,
  grid: HTMLElement,
  body: HTMLElement,
  slots: Slot[],
  makeSlot: () => Slot,
): VisibleRange {
  const range = visibleRange(viewport);
  body.style.height = `${range.totalHeight}px`;
  setAttr(grid, 'aria-rowcount', viewport.total + 1);
  while (slots.length < range.last - range.first) {
    slots.push(makeSlot());
  }
  return range;
}
