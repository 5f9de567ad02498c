// The scroll container of a virtualized grid as last measured: its height and scroll position,
// read once at the start of a frame, before anything is written. Drawing then never reads
// layout back after a write, which would make the browser lay the page out again in the middle
// of the frame (once per pane, on every frame while events arrive). scrollTop is written through
// here, clamped as the browser clamps it, so the position stays known without reading it back.
import { clampScrollTop } from '../model/virtual_scroll';

export class ScrollGeometry {
  private height = 0;
  private top = 0;

  constructor(
    private readonly element: HTMLElement,
    // The height of the sticky header row (what the rows cannot show in).
    private readonly headHeight: number,
  ) {}

  // Reads the element's layout: call before this frame writes anything to the page.
  measure(): void {
    this.height = this.element.clientHeight;
    this.top = this.element.scrollTop;
  }

  get scrollTop(): number {
    return this.top;
  }

  // The height rows show in, under the header.
  get viewportHeight(): number {
    return Math.max(this.height - this.headHeight, 0);
  }

  // Scrolls to top, within a list of total rows of rowHeight.
  scrollTo(top: number, total: number, rowHeight: number): void {
    const clamped = clampScrollTop(top, total, rowHeight, this.viewportHeight);
    if (clamped !== this.top) {
      this.element.scrollTop = clamped;
      this.top = clamped;
    }
  }
}
