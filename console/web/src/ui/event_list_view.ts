// The list of the events pane: the log's view (newest first) as an ARIA grid, virtualized like
// the table (fixed row height, only the rows in sight in the DOM). New events come in at the top:
// scrolled to the top, the list shows them; scrolled down, the row the user reads stays where it
// is. One tab stop; Up, Down, PageUp, PageDown, Home, End move the cursor, Enter opens the event.
import { indexInView, type LoggedEvent } from '../model/event_log';
import { anchorAt, pageStep, scrollToReveal } from '../model/virtual_scroll';
import { h, setAttr, setHidden, setText } from './dom';
import { clockText, eventObjectText } from './event_text';
import { layoutRows } from './row_slots';

export const EVENT_ROW_HEIGHT = 22;
const OVERSCAN = 8;
const CURSOR_ID = 'event-cursor';
const COLUMNS = ['Time', 'Type', 'Kind', 'Object', 'ResourceVersion'];

interface Slot {
  readonly element: HTMLDivElement;
  readonly cells: HTMLDivElement[];
  event: LoggedEvent | undefined;
}

export class EventListView {
  readonly element: HTMLElement;
  private readonly body = h('div', { class: 'grid-body', role: 'rowgroup' });
  private slots: Slot[] = [];
  private view: readonly LoggedEvent[] = [];
  private cursor: number | undefined;
  private anchor: { seq: number; offset: number } | undefined;
  private openSeq: number | undefined;
  private emptyText = '';
  private frame = 0;

  constructor(
    labelledBy: string,
    private readonly open: (event: LoggedEvent) => void,
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
    return Math.max(this.element.clientHeight - EVENT_ROW_HEIGHT, 0);
  }

  // Keeps the row at the top of the viewport in place when events arrive above it.
  private follow(view: readonly LoggedEvent[]): void {
    this.view = view;
    const anchor = this.anchor;
    if (anchor && this.element.scrollTop > 0) {
      const index = indexInView(view, anchor.seq);
      if (index >= 0) {
        this.element.scrollTop = index * EVENT_ROW_HEIGHT + anchor.offset;
      }
    }
    if (this.cursor !== undefined && indexInView(view, this.cursor) < 0) {
      this.cursor = undefined;
    }
  }

  private requestFrame(): void {
    if (this.frame !== 0) {
      return;
    }
    this.frame = window.requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private makeSlot(): Slot {
    const cells = COLUMNS.map((_, i) => h('div', { class: 'cell', role: i === 3 ? 'rowheader' : 'gridcell' }));
    const element = h('div', { class: 'row', role: 'row' }, ...cells);
    this.body.append(element);
    return { element, cells, event: undefined };
  }

  private draw(): void {
    const view = this.view;
    const range = layoutRows(
      {
        rowHeight: EVENT_ROW_HEIGHT,
        viewportHeight: this.viewportHeight,
        scrollTop: this.element.scrollTop,
        total: view.length,
        overscan: OVERSCAN,
      },
      this.element,
      this.body,
      this.slots,
      () => this.makeSlot(),
    );
    const count = range.last - range.first;
    let cursorShown = false;
    this.slots.forEach((slot, i) => {
      const index = range.first + i;
      const event = i < count ? view[index] : undefined;
      slot.event = event;
      setHidden(slot.element, event === undefined);
      if (!event) {
        slot.element.removeAttribute('id');
        return;
      }
      slot.element.style.transform = `translateY(${index * EVENT_ROW_HEIGHT}px)`;
      setAttr(slot.element, 'aria-rowindex', index + 2);
      const isCursor = event.seq === this.cursor;
      cursorShown ||= isCursor;
      setAttr(slot.element, 'id', isCursor ? CURSOR_ID : undefined);
      setAttr(slot.element, 'aria-selected', isCursor ? 'true' : 'false');
      slot.element.classList.toggle('cursor', isCursor);
      slot.element.classList.toggle('open', event.seq === this.openSeq);
      slot.element.classList.toggle('alt', index % 2 === 1);
      const [time, type, kind, object, version] = slot.cells;
      if (time && type && kind && object && version) {
        setText(time, clockText(event.receivedAt));
        setText(type, event.type);
        type.className = `cell ev-type ev-${event.type.toLowerCase()}`;
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
    const top = anchorAt(this.element.scrollTop, EVENT_ROW_HEIGHT);
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
      this.element.scrollTop = scrollToReveal(clamped, EVENT_ROW_HEIGHT, this.viewportHeight, this.element.scrollTop);
      this.requestFrame();
    }
  }

  private onKey(event: KeyboardEvent): void {
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
