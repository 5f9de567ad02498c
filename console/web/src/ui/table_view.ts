// The centre pane: the server's Table for the route's resource as an ARIA grid, virtualized (a
// fixed row height, only the rows in sight plus an overscan in the DOM, a body as tall as all
// rows, rows placed with transforms), so 50,000 rows scroll. While events stream in, the row at
// the top of the viewport stays where it is (the scroll position follows it), column widths are
// chosen once per table, and every height is fixed: nothing the user looks at moves.
//
// Keys (the grid is one tab stop; aria-activedescendant names the row under the cursor): Up,
// Down, PageUp, PageDown, Home, End move the cursor; Enter opens the row's object. Up from the
// first row reaches the column headers, where Left and Right move and Enter sorts.
import type { ConsoleState } from '../model/console_state';
import { targetKey } from '../model/feed_cache';
import { shownCell, type ViewColumn } from '../model/table_columns';
import type { Row } from '../model/table_data';
import type { TableFeed } from '../model/table_feed';
import { anchorAt, pageStep, scrollForAnchor, scrollToReveal, type Anchor } from '../model/virtual_scroll';
import { columnWidths, MAX_COLUMN_PX, type Measure } from './column_widths';
import { h, setAttr, setHidden, setText } from './dom';
import type { FramePart, FrameScheduler } from './frame_scheduler';
import { layoutRows, placeRows, type RowSlot } from './row_slots';
import { ScrollGeometry } from './scroll_geometry';
import { feedLine, rowsText } from './status_text';

export const ROW_HEIGHT = 24;
const OVERSCAN = 10;
// Rows sampled for the column widths.
const WIDTH_SAMPLE = 300;
const CURSOR_ID = 'grid-cursor';
const HOME_TEXT =
  'Choose a kind in the tree (arrow keys and Enter work there too). Its objects are listed as the ' +
  "server's Table, page by page, then watched: changes show as they happen.";

export interface TableActions {
  setCursor(key: string | undefined): void;
  openRow(row: Row): void;
  // Sorts by this column: ascending, then descending, then not at all.
  sortBy(column: string): void;
}

interface Slot extends RowSlot<string> {
  readonly cells: HTMLDivElement[];
}

export class TableView {
  readonly element: HTMLElement;
  private readonly caption = h('h2', { class: 'table-caption', id: 'table-caption' });
  private readonly message = h('p', { class: 'pane-message', role: 'status' });
  private readonly grid = h('div', { class: 'grid', role: 'grid', tabindex: 0, 'aria-labelledby': 'table-caption' });
  private readonly headRow = h('div', { class: 'row head', role: 'row', 'aria-rowindex': 1 });
  private readonly body = h('div', { class: 'grid-body', role: 'rowgroup' });
  private readonly geometry = new ScrollGeometry(this.grid, ROW_HEIGHT);
  private readonly rowsInfo = h('span', { class: 'rows-info' });
  private readonly feedInfo = h('span', { class: 'feed-info' });
  private readonly hints = h(
    'span',
    { class: 'key-hints', 'aria-hidden': 'true' },
    h('kbd', {}, '↑↓'),
    ' move  ',
    h('kbd', {}, 'Enter'),
    ' opens  ',
    h('kbd', {}, '/'),
    ' filters',
  );
  private slots: Slot[] = [];
  private columns: readonly ViewColumn[] = [];
  private widths: number[] = [];
  private layoutKey = '';
  private sampledRows = 0;
  private viewKey = '';
  private revision = -1;
  private anchor: (Anchor & { key: string }) | undefined;
  private headerFocus: number | undefined;
  // The cursor last scrolled into sight.
  private revealed: string | undefined;
  private state: ConsoleState | undefined;
  // The table on its own (scrolled, resized), in the page's frame.
  private readonly part: FramePart = {
    measure: () => this.measure(),
    draw: () => {
      if (this.state) {
        this.render(this.state);
      }
    },
  };

  constructor(
    private readonly frames: FrameScheduler,
    private readonly actions: TableActions,
  ) {
    const head = h('div', { class: 'grid-head', role: 'rowgroup' }, this.headRow);
    this.grid.append(head, this.body);
    this.element = h(
      'section',
      { class: 'table-pane', 'aria-label': 'Objects' },
      this.caption,
      this.message,
      this.grid,
      h('footer', { class: 'table-footer' }, this.rowsInfo, this.feedInfo, this.hints),
    );
    this.grid.style.setProperty('--row-h', `${ROW_HEIGHT}px`);
    this.grid.addEventListener('scroll', () => this.requestFrame());
    this.grid.addEventListener('keydown', (event) => this.onKey(event));
    this.body.addEventListener('click', (event) => this.onClick(event));
    this.headRow.addEventListener('click', (event) => {
      const cell = event.target instanceof Element ? event.target.closest('[role="columnheader"]') : null;
      const index = cell ? Number(cell.getAttribute('data-index')) : -1;
      const column = this.columns[index];
      if (column) {
        this.headerFocus = undefined;
        this.actions.sortBy(column.id);
      }
    });
    new ResizeObserver(() => this.requestFrame()).observe(this.grid);
  }

  focus(): void {
    this.grid.focus();
  }

  // Reads the grid's size and scroll position; render uses them. Called at the start of a frame,
  // before anything in the page is written.
  measure(): void {
    this.geometry.measure();
  }

  render(state: ConsoleState): void {
    this.state = state;
    const feed = state.feed;
    this.renderCaption(state);
    // A failure shows above the table only while there are no rows to look at (a banner would
    // push them down); otherwise in the footer.
    const failing = feed?.status.phase === 'retrying' && feed.store.size === 0;
    const problem = state.problem ?? (feed && failing ? feedLine(feed.status, feed.complete).text : undefined);
    const note = problem ?? (state.route.resource ? undefined : HOME_TEXT);
    setText(this.message, note ?? '');
    this.message.classList.toggle('error', problem !== undefined);
    setHidden(this.message, note === undefined);
    setHidden(this.hints, !feed);
    if (!feed) {
      this.showGrid(false);
      const discovering = state.route.resource !== undefined && !state.discovery.loaded;
      setText(this.rowsInfo, '');
      setText(this.feedInfo, discovering ? 'Discovering resources…' : '');
      this.feedInfo.className = discovering ? 'feed-info busy' : 'feed-info';
      return;
    }
    this.showGrid(true);
    this.layout(feed);
    this.follow(feed, state);
    this.renderRows(feed, state);
    this.renderFooter(feed);
  }

  private requestFrame(): void {
    this.frames.request(this.part);
  }

  private showGrid(show: boolean): void {
    const shown = show && this.grid.hidden;
    setHidden(this.grid, !show);
    if (shown) {
      // Hidden, it measured nothing: measured now (one layout, when a table first shows), its
      // first frame fills the viewport.
      this.measure();
    }
    if (!show) {
      this.layoutKey = '';
      this.viewKey = '';
    }
  }

  private renderCaption(state: ConsoleState): void {
    const resource = state.resource;
    const ref = state.route.resource;
    if (!ref) {
      setText(this.caption, 'No resource chosen');
      setAttr(this.caption, 'title', undefined);
      return;
    }
    const group = ref.group === '' ? 'core' : ref.group;
    const narrowed = state.narrowed;
    const where =
      resource && !resource.namespaced
        ? 'cluster-scoped'
        : narrowed
          ? `namespace ${narrowed.namespace} (all namespaces refused)`
          : state.route.namespace === ''
            ? 'all namespaces'
            : `namespace ${state.route.namespace}`;
    setText(this.caption, `${resource?.kind ?? ref.resource}  ·  ${group}/${ref.version}  ·  ${where}`);
    setAttr(this.caption, 'title', narrowed?.refusal);
  }

  // Columns and their widths: chosen when the table (or its columns) change, and once more when
  // the first rows arrive, never on events.
  private layout(feed: TableFeed): void {
    const store = feed.store;
    const key = `${targetKey(feed.target)}|${store.columns.map((c) => c.id).join('\u0000')}`;
    if (key === this.layoutKey && (this.sampledRows > 0 || store.length === 0)) {
      return;
    }
    this.layoutKey = key;
    this.columns = store.columns;
    const sample: string[][] = [];
    const now = Date.now();
    for (let i = 0; i < Math.min(store.length, WIDTH_SAMPLE); i += 1) {
      const row = store.at(i);
      if (row) {
        sample.push(this.columns.map((c) => shownCell(row, c, now)));
      }
    }
    this.sampledRows = sample.length;
    this.widths = columnWidths(this.columns, sample, this.measurer());
    const tracks = this.widths.map((w, i) => (i === this.widths.length - 1 ? `minmax(${w}px, 1fr)` : `${w}px`));
    this.grid.style.setProperty('--cols', tracks.join(' '));
    this.grid.style.setProperty('--grid-w', `${this.widths.reduce((a, b) => a + b, 0)}px`);
    setAttr(this.grid, 'aria-colcount', this.columns.length);
    this.headRow.replaceChildren(
      ...this.columns.map((column, index) =>
        h(
          'div',
          { role: 'columnheader', class: 'cell', id: `col-${index}`, 'data-index': index, ...(column.description ? { title: column.description } : {}) },
          h('button', { type: 'button', tabindex: -1, class: 'sort-button' }, column.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' })),
        ),
      ),
    );
    for (const slot of this.slots) {
      slot.element.remove();
    }
    this.slots = [];
    this.headerFocus = undefined;
  }

  // Text widths in the grid's fonts, measured on a canvas (no layout).
  private measurer(): Measure {
    const context = document.createElement('canvas').getContext('2d');
    const style = getComputedStyle(this.grid);
    const font = `${style.fontSize} ${style.fontFamily}`;
    if (!context) {
      const size = parseFloat(style.fontSize) || 13;
      return { cell: (text) => text.length * size * 0.6, header: (text) => text.length * size * 0.65 };
    }
    const width = (weight: string, text: string): number => {
      context.font = `${weight} ${font}`;
      return context.measureText(text).width;
    };
    return { cell: (text) => width('400', text), header: (text) => width('600', text) };
  }

  private get viewportHeight(): number {
    return this.geometry.viewportHeight;
  }

  // Keeps the scroll position on what the user looks at: after events, the row at the top stays
  // put; after a new view (another table, filter or sort) the top shows; a cursor placed from the
  // URL (the object opened) is scrolled into sight once its row is there.
  private follow(feed: TableFeed, state: ConsoleState): void {
    const store = feed.store;
    const sort = store.sort;
    const viewKey = `${targetKey(feed.target)}|${store.filter}|${sort ? `${sort.descending ? '-' : ''}${sort.column}` : ''}`;
    if (viewKey !== this.viewKey) {
      this.viewKey = viewKey;
      this.revision = store.revision;
      this.revealed = undefined;
      this.geometry.scrollTo(0, store.length, ROW_HEIGHT);
    } else if (store.revision !== this.revision) {
      this.revision = store.revision;
      const anchor = this.anchor;
      const index = anchor ? store.indexOf(anchor.key) : -1;
      // While the first list arrives there is nothing the user has read yet to hold in place.
      if (feed.complete && anchor && index >= 0 && index !== anchor.index) {
        this.geometry.scrollTo(scrollForAnchor(index, anchor, ROW_HEIGHT, store.length, this.viewportHeight), store.length, ROW_HEIGHT);
      }
    }
    if (state.cursor !== this.revealed) {
      const index = state.cursor !== undefined ? store.indexOf(state.cursor) : -1;
      if (index >= 0 || state.cursor === undefined) {
        this.revealed = state.cursor;
        const top = this.geometry.scrollTop;
        if (index >= 0 && scrollToReveal(index, ROW_HEIGHT, this.viewportHeight, top) !== top) {
          this.geometry.scrollTo(index * ROW_HEIGHT - (this.viewportHeight - ROW_HEIGHT) / 2, store.length, ROW_HEIGHT);
        }
      }
    }
    const top = anchorAt(this.geometry.scrollTop, ROW_HEIGHT);
    const row = store.at(top.index);
    this.anchor = row ? { ...top, key: row.key } : undefined;
  }

  private makeSlot(): Slot {
    const cells = this.columns.map((column) => h('div', { class: 'cell', role: column.isName ? 'rowheader' : 'gridcell' }));
    const element = h('div', { class: 'row', role: 'row' }, ...cells);
    this.body.append(element);
    return { element, cells, key: undefined, index: -1 };
  }

  private renderRows(feed: TableFeed, state: ConsoleState): void {
    const store = feed.store;
    const range = layoutRows(
      {
        rowHeight: ROW_HEIGHT,
        viewportHeight: this.viewportHeight,
        scrollTop: this.geometry.scrollTop,
        total: store.length,
        overscan: OVERSCAN,
      },
      this.grid,
      this.body,
      this.slots,
      () => this.makeSlot(),
    );
    const rows: Row[] = [];
    for (let index = range.first; index < range.last; index += 1) {
      const row = store.at(index);
      if (row) {
        rows.push(row);
      }
    }
    const now = Date.now();
    const openUid = state.detail.state.uid;
    let cursorShown = false;
    placeRows(this.slots, rows, range.first, (row) => row.key, ROW_HEIGHT, (slot, row) => {
      const isCursor = row.key === state.cursor;
      cursorShown ||= isCursor;
      setAttr(slot.element, 'id', isCursor ? CURSOR_ID : undefined);
      setAttr(slot.element, 'aria-selected', isCursor ? 'true' : 'false');
      slot.element.classList.toggle('cursor', isCursor);
      slot.element.classList.toggle('open', row.key === openUid);
      this.columns.forEach((column, c) => {
        const cell = slot.cells[c];
        if (cell) {
          const text = shownCell(row, column, now);
          setText(cell, text);
          setAttr(cell, 'title', (this.widths[c] ?? 0) >= MAX_COLUMN_PX ? text : undefined);
        }
      });
    });
    this.renderHeaderState(store.sort);
    const active = this.headerFocus !== undefined ? `col-${this.headerFocus}` : cursorShown ? CURSOR_ID : undefined;
    setAttr(this.grid, 'aria-activedescendant', active);
  }

  private renderHeaderState(sort: { column: string; descending: boolean } | undefined): void {
    this.columns.forEach((column, index) => {
      const cell = this.headRow.children[index];
      if (!(cell instanceof HTMLElement)) {
        return;
      }
      const sorted = sort?.column === column.id;
      setAttr(cell, 'aria-sort', sorted ? (sort.descending ? 'descending' : 'ascending') : undefined);
      cell.classList.toggle('header-focus', index === this.headerFocus);
      const mark = cell.querySelector('.sort-mark');
      if (mark) {
        setText(mark, sorted ? (sort.descending ? '▼' : '▲') : '');
      }
    });
  }

  private renderFooter(feed: TableFeed): void {
    const store = feed.store;
    setText(this.rowsInfo, feed.complete || store.size > 0 ? rowsText(store.length, store.size, store.filter !== '') : '');
    const line = feedLine(feed.status, feed.complete);
    setText(this.feedInfo, line.text);
    setAttr(this.feedInfo, 'title', line.tone === 'error' ? line.text : undefined);
    this.feedInfo.className = `feed-info ${line.tone}`;
    // The hints make room for an error.
    setHidden(this.hints, line.tone === 'error');
    const empty = feed.complete && store.length === 0;
    this.body.classList.toggle('empty', empty);
    setAttr(this.body, 'data-empty', empty ? (store.size === 0 ? 'No objects.' : 'No rows match the filter.') : undefined);
  }

  private onClick(event: MouseEvent): void {
    const element = event.target instanceof Element ? event.target.closest('.row') : null;
    const slot = this.slots.find((s) => s.element === element);
    const row = slot?.key !== undefined ? this.state?.feed?.store.get(slot.key) : undefined;
    if (row) {
      this.headerFocus = undefined;
      this.actions.setCursor(row.key);
      this.actions.openRow(row);
    }
  }

  // Moves the cursor to this place in the view and scrolls it into sight.
  private moveCursor(index: number): void {
    const store = this.state?.feed?.store;
    if (!store || store.length === 0) {
      return;
    }
    const clamped = Math.min(Math.max(index, 0), store.length - 1);
    const row = store.at(clamped);
    if (row) {
      this.geometry.scrollTo(scrollToReveal(clamped, ROW_HEIGHT, this.viewportHeight, this.geometry.scrollTop), store.length, ROW_HEIGHT);
      this.actions.setCursor(row.key);
    }
  }

  private onKey(event: KeyboardEvent): void {
    const state = this.state;
    const store = state?.feed?.store;
    if (!state || !store) {
      return;
    }
    this.measure();
    if (this.headerFocus !== undefined) {
      this.onHeaderKey(event);
      return;
    }
    const current = state.cursor !== undefined ? store.indexOf(state.cursor) : -1;
    const page = pageStep(ROW_HEIGHT, this.viewportHeight);
    switch (event.key) {
      case 'ArrowDown':
        this.moveCursor(current < 0 ? 0 : current + 1);
        break;
      case 'ArrowUp':
        if (current <= 0) {
          const sorted = this.columns.findIndex((c) => c.id === store.sort?.column);
          this.headerFocus = Math.max(sorted, 0);
          this.requestFrame();
        } else {
          this.moveCursor(current - 1);
        }
        break;
      case 'PageDown':
        this.moveCursor(current < 0 ? page : current + page);
        break;
      case 'PageUp':
        this.moveCursor(current < 0 ? 0 : current - page);
        break;
      case 'Home':
        this.moveCursor(0);
        break;
      case 'End':
        this.moveCursor(store.length - 1);
        break;
      case 'Enter': {
        const row = current >= 0 ? store.at(current) : undefined;
        if (row) {
          this.actions.openRow(row);
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  }

  private onHeaderKey(event: KeyboardEvent): void {
    const focus = this.headerFocus ?? 0;
    switch (event.key) {
      case 'ArrowLeft':
        this.headerFocus = Math.max(focus - 1, 0);
        break;
      case 'ArrowRight':
        this.headerFocus = Math.min(focus + 1, this.columns.length - 1);
        break;
      case 'Home':
        this.headerFocus = 0;
        break;
      case 'End':
        this.headerFocus = Math.max(this.columns.length - 1, 0);
        break;
      case 'ArrowDown':
      case 'Escape':
        this.headerFocus = undefined;
        this.moveCursor(0);
        break;
      case 'Enter':
      case ' ': {
        const column = this.columns[focus];
        if (column) {
          this.actions.sortBy(column.id);
        }
        break;
      }
      default:
        return;
    }
    this.requestFrame();
    event.preventDefault();
  }
}
