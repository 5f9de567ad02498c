// The list of the events pane: the log's view (newest first) as an ARIA grid, virtualized like
// the table (fixed row height, only the rows in sight in the DOM). New events come in at the top:
// scrolled to the top, the list shows them; scrolled down, the row the user reads stays where it
// is. One tab stop; Up, Down, PageUp, PageDown, Home, End move the cursor, Enter opens the event.
import { indexInView, type LoggedEvent } from '../model/event_log';
import { anchorAt, pageStep, scrollToReveal } from '../model/virtual_scroll';
import { h, setAttr, setText } from './dom';
import { clockText, eventObjectText } from './event_text';
import type { FramePart, FrameScheduler } from './frame_scheduler';
import { layoutRows, placeRows, type RowSlot } from './row_slots';
import { ScrollGeometry } from './scroll_geometry';

export const EVENT_ROW_HEIGHT = 22;
const OVERSCAN = 8;
const CURSOR_ID = 'event-cursor';
const COLUMNS = ['Time', 'Type', 'Kind', 'Object', 'ResourceVersion'];

// Keyed by the event's number in the log.
interface Slot extends RowSlot<number> {
  readonly cells: HTMLDivElement[];
  event: LoggedEvent | undefined;
}

export class EventListView {
  readonly element: HTMLElement;
  private readonly body = h('div', { class: 'grid-body', role: 'rowgroup' });
  private readonly geometry: ScrollGeometry;
  private slots: Slot[] = [];
  private view: readonly LoggedEvent[] = [];
  private cursor: number | undefined;
  private anchor: { seq: number; offset: number } | undefined;
  private openSeq: number | undefined;
  private emptyText = '';
  // The list on its own (scrolled, resized, keys), in the page's frame.
  private readonly part: FramePart = { measure: () => this.measure(), draw: () => this.draw() };

  constructor(
    labelledBy: string,
    private readonly open: (event: LoggedEvent) => void,
    private readonly frames: FrameScheduler,
  ) {
    const head = h(
      'div',
      { class: 'grid-head', role: 'rowgroup' },
      h('div', { class: 'row head', role: 'row', 'aria-rowindex': 1 }, ...COLUMNS.map((name) => h('div', { class: 'cell', role: 'columnheader' }, name))),
    );
    this.element = h(
      'div',
      { class: 'grid events-grid', role: 'grid', tabindex: 0, 'aria-labelledby': labelledBy, 'aria-readonly': 'true', 'aria-colcount': COLUMNS.length },
      head,
      this.body,
    );
    this.geometry = new ScrollGeometry(this.element, EVENT_ROW_HEIGHT);
    this.element.style.setProperty('--row-h', `${EVENT_ROW_HEIGHT}px`);
    this.element.addEventListener('scroll', () => this.requestFrame());
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.body.addEventListener('click', (event) => {
      const row = event.target instanceof Element ? event.target.closest('.row') : null;
      const picked = this.slots.find((s) => s.element === row)?.event;
      if (picked) {
        this.cursor = picked.seq;
        this.open(picked);
        this.requestFrame();
      }
    });
    new ResizeObserver(() => this.requestFrame()).observe(this.element);
  }

  focus(): void {
    this.element.focus();
  }

  // Reads the list's size and scroll position; render uses them. Called at the start of a frame,
  // before anything in the page is written.
  measure(): void {
    this.geometry.measure();
  }

  // Shows a view of the log; openSeq is the event open in the detail pane.
  render(view: readonly LoggedEvent[], openSeq: number | undefined, emptyText: string): void {
    if (view !== this.view) {
      this.follow(view);
    }
    this.openSeq = openSeq;
    this.emptyText = emptyText;
    this.draw();
  }

  private get viewportHeight(): number {
    return this.geometry.viewportHeight;
  }

  // Keeps the row at the top of the viewport in place when events arrive above it.
  private follow(view: readonly LoggedEvent[]): void {
    this.view = view;
    const anchor = this.anchor;
    if (anchor && this.geometry.scrollTop > 0) {
      const index = indexInView(view, anchor.seq);
      if (index >= 0) {
        this.geometry.scrollTo(index * EVENT_ROW_HEIGHT + anchor.offset, view.length, EVENT_ROW_HEIGHT);
      }
    }
    if (this.cursor !== undefined && indexInView(view, this.cursor) < 0) {
      this.cursor = undefined;
    }
  }

  private requestFrame(): void {
    this.frames.request(this.part);
  }

  private makeSlot(): Slot {
    const cells = COLUMNS.map((_, i) => h('div', { class: 'cell', role: i === 3 ? 'rowheader' : 'gridcell' }));
    const element = h('div', { class: 'row', role: 'row' }, ...cells);
    this.body.append(element);
    return { element, cells, event: undefined, key: undefined, index: -1 };
  }

  private draw(): void {
    const view = this.view;
    const range = layoutRows(
      {
        rowHeight: EVENT_ROW_HEIGHT,
        viewportHeight: this.viewportHeight,
        scrollTop: this.geometry.scrollTop,
        total: view.length,
        overscan: OVERSCAN,
      },
      this.element,
      this.body,
      this.slots,
      () => this.makeSlot(),
    );
    let cursorShown = false;
    for (const slot of this.slots) {
      slot.event = undefined;
    }
    placeRows(this.slots, view.slice(range.first, range.last), range.first, (event) => event.seq, EVENT_ROW_HEIGHT, (slot, event) => {
      slot.event = event;
      const isCursor = event.seq === this.cursor;
      cursorShown ||= isCursor;
      setAttr(slot.element, 'id', isCursor ? CURSOR_ID : undefined);
      setAttr(slot.element, 'aria-selected', isCursor ? 'true' : 'false');
      slot.element.classList.toggle('cursor', isCursor);
      slot.element.classList.toggle('open', event.seq === this.openSeq);
      const [time, type, kind, object, version] = slot.cells;
      if (time && type && kind && object && version) {
        setText(time, clockText(event.receivedAt));
        setText(type, event.type);
        const typeClass = `cell ev-type ev-${event.type.toLowerCase()}`;
        if (type.className !== typeClass) {
          type.className = typeClass;
        }
        setText(kind, event.kind);
        const name = eventObjectText(event);
        setText(object, name);
        setAttr(object, 'title', name);
        setText(version, event.resourceVersion);
      }
    });
    setAttr(this.element, 'aria-activedescendant', cursorShown ? CURSOR_ID : undefined);
    const empty = view.length === 0;
    this.body.classList.toggle('empty', empty);
    setAttr(this.body, 'data-empty', empty ? this.emptyText : undefined);
    const top = anchorAt(this.geometry.scrollTop, EVENT_ROW_HEIGHT);
    const first = view[top.index];
    this.anchor = first ? { seq: first.seq, offset: top.offset } : undefined;
  }

  private moveCursor(index: number): void {
    if (this.view.length === 0) {
      return;
    }
    const clamped = Math.min(Math.max(index, 0), this.view.length - 1);
    const event = this.view[clamped];
    if (event) {
      this.cursor = event.seq;
      this.geometry.scrollTo(scrollToReveal(clamped, EVENT_ROW_HEIGHT, this.viewportHeight, this.geometry.scrollTop), this.view.length, EVENT_ROW_HEIGHT);
      this.requestFrame();
    }
  }

  private onKey(event: KeyboardEvent): void {
    this.measure();
    const current = this.cursor === undefined ? -1 : indexInView(this.view, this.cursor);
    const page = pageStep(EVENT_ROW_HEIGHT, this.viewportHeight);
    switch (event.key) {
      case 'ArrowDown':
        this.moveCursor(current + 1);
        break;
      case 'ArrowUp':
        this.moveCursor(current <= 0 ? 0 : current - 1);
        break;
      case 'PageDown':
        this.moveCursor(current < 0 ? page : current + page);
        break;
      case 'PageUp':
        this.moveCursor(current - page);
        break;
      case 'Home':
        this.moveCursor(0);
        break;
      case 'End':
        this.moveCursor(this.view.length - 1);
        break;
      case 'Enter':
      case ' ': {
        const picked = current >= 0 ? this.view[current] : undefined;
        if (picked) {
          this.open(picked);
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  }
}
