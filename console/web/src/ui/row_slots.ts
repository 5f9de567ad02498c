// The frame of a virtualized grid, shared by the table and the event list: which rows are in
// view, the spacer's height, the grid's aria-rowcount (rows plus the header row), enough row
// slots (DOM rows reused as the view scrolls) for them, and which slot shows which row.
import { assignSlots, visibleRange, type Viewport, type VisibleRange } from '../model/virtual_scroll';
import { setAttr, setHidden } from './dom';

export interface RowSlot<K> {
  readonly element: HTMLElement;
  // What the slot shows (undefined: nothing, hidden) and at which place in the view.
  key: K | undefined;
  index: number;
}

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

// Shows items (the rows from place first on) in the slots: a row already in a slot stays in it,
// so scrolling or rows arriving above change only the slots of the rows that come into view.
// Each shown slot is placed (its transform, aria-rowindex and the alternate shading), then
// fill() writes the rest; the slots left over are hidden.
export function placeRows<K, Item, Slot extends RowSlot<K>>(
  slots: readonly Slot[],
  items: readonly Item[],
  first: number,
  keyOf: (item: Item) => K,
  rowHeight: number,
  fill: (slot: Slot, item: Item, index: number) => void,
): void {
  const keys = items.map(keyOf);
  const placed = assignSlots(
    slots.map((slot) => slot.key),
    keys,
  );
  const shown = slots.map(() => false);
  items.forEach((item, i) => {
    const at = placed[i] ?? -1;
    const slot = slots[at];
    if (!slot) {
      return;
    }
    shown[at] = true;
    const index = first + i;
    slot.key = keys[i];
    setHidden(slot.element, false);
    if (slot.index !== index) {
      slot.index = index;
      slot.element.style.transform = `translateY(${index * rowHeight}px)`;
      setAttr(slot.element, 'aria-rowindex', index + 2);
      slot.element.classList.toggle('alt', index % 2 === 1);
    }
    fill(slot, item, index);
  });
  slots.forEach((slot, at) => {
    if (!shown[at]) {
      setHidden(slot.element, true);
      slot.key = undefined;
      slot.index = -1;
      slot.element.removeAttribute('id');
    }
  });
}
