// The rows of one listed collection, keyed by uid, and the view of them: filtered (a
// case-insensitive substring of any cell) and sorted (by any column; then by namespace, name and
// uid, so the order is total and rows never swap at random).
//
// Watch events change rows in place: a binary search finds where a row leaves and where it
// enters the view; a row changed where it stays (its sort key and the filter's verdict as they
// were: most changes) takes its old place, the rows after it unmoved. A batch changing many rows
// rebuilds the view instead.
import { rawCell, sortKeyOf, viewColumns, type SortKey, type ViewColumn } from './table_columns';
import type { Row, ServerColumn } from './table_data';

export interface SortSpec {
  readonly column: string;
  readonly descending: boolean;
}

export interface RowChange {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly row: Row;
}

// The sort after a click on a column: ascending, then descending, then none.
export function nextSort(current: SortSpec | undefined, column: string): SortSpec | undefined {
  if (current?.column !== column) {
    return { column, descending: false };
  }
  return current.descending ? undefined : { column, descending: true };
}

// A batch at least this large, or over an eighth of the rows, rebuilds the view.
const REBUILD_BATCH = 256;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isMissing(key: SortKey): boolean {
  return typeof key === 'number' && Number.isNaN(key);
}

function compareKeys(a: SortKey, b: SortKey, descending: boolean): number {
  const aMissing = isMissing(a);
  const bMissing = isMissing(b);
  if (aMissing || bMissing) {
    return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  }
  const order = a < b ? -1 : a > b ? 1 : 0;
  return descending ? -order : order;
}

// The order of rows when no column is sorted: namespace, then name, then key.
function compareRows(a: Row, b: Row): number {
  return compareText(a.namespace, b.namespace) || compareText(a.name, b.name) || compareText(a.key, b.key);
}

export class TableStore {
  private serverColumns: readonly ServerColumn[] = [];
  private columnsValue: readonly ViewColumn[] = [];
  private readonly rows = new Map<string, Row>();
  private viewRows: Row[] = [];
  private viewKeys: SortKey[] = [];
  private filterText = '';
  private filterLower = '';
  private sortSpec: SortSpec | undefined;
  private sortColumn: ViewColumn | undefined;
  private revisionValue = 0;

  constructor(private readonly withNamespace: boolean) {}

  get columns(): readonly ViewColumn[] {
    return this.columnsValue;
  }

  get listColumns(): readonly ServerColumn[] {
    return this.serverColumns;
  }

  // Every row, filtered or not.
  get size(): number {
    return this.rows.size;
  }

  // The rows the view shows.
  get length(): number {
    return this.viewRows.length;
  }

  // Changes with every change of rows, filter or sort.
  get revision(): number {
    return this.revisionValue;
  }

  get filter(): string {
    return this.filterText;
  }

  get sort(): SortSpec | undefined {
    return this.sortSpec;
  }

  // The row at this place in the view.
  at(index: number): Row | undefined {
    return this.viewRows[index];
  }

  get(key: string): Row | undefined {
    return this.rows.get(key);
  }

  // The place of the row with this key in the view; -1 when filtered out or absent.
  indexOf(key: string): number {
    const row = this.rows.get(key);
    return row ? this.find(row) : -1;
  }

  // The list: every row at once, with the list's columns.
  replace(columns: readonly ServerColumn[], rows: readonly Row[]): void {
    this.serverColumns = columns;
    this.columnsValue = viewColumns(columns, this.withNamespace);
    this.rows.clear();
    for (const row of rows) {
      this.rows.set(row.key, row);
    }
    this.resolveSort();
    this.rebuild();
  }

  // Watch events, in order.
  apply(changes: readonly RowChange[]): void {
    if (changes.length === 0) {
      return;
    }
    if (changes.length >= REBUILD_BATCH || changes.length * 8 > this.rows.size) {
      for (const change of changes) {
        if (change.type === 'DELETED') {
          this.rows.delete(change.row.key);
        } else {
          this.rows.set(change.row.key, change.row);
        }
      }
      this.rebuild();
      return;
    }
    for (const change of changes) {
      const before = this.rows.get(change.row.key);
      if (before && change.type !== 'DELETED' && this.replaceInView(before, change.row)) {
        this.rows.set(change.row.key, change.row);
        continue;
      }
      if (before) {
        this.removeFromView(before);
      }
      if (change.type === 'DELETED') {
        this.rows.delete(change.row.key);
        continue;
      }
      this.rows.set(change.row.key, change.row);
      this.insertIntoView(change.row);
    }
    this.revisionValue += 1;
  }

  setFilter(text: string): void {
    if (text === this.filterText) {
      return;
    }
    this.filterText = text;
    this.filterLower = text.toLowerCase();
    this.rebuild();
  }

  setSort(sort: SortSpec | undefined): void {
    if (sort?.column === this.sortSpec?.column && sort?.descending === this.sortSpec?.descending) {
      return;
    }
    this.sortSpec = sort;
    this.resolveSort();
    this.rebuild();
  }

  private resolveSort(): void {
    const spec = this.sortSpec;
    this.sortColumn = spec ? this.columnsValue.find((c) => c.id === spec.column) : undefined;
  }

  private keyOf(row: Row): SortKey {
    return this.sortColumn ? sortKeyOf(row, this.sortColumn) : 0;
  }

  private compare(aKey: SortKey, a: Row, bKey: SortKey, b: Row): number {
    return compareKeys(aKey, bKey, this.sortSpec?.descending ?? false) || compareRows(a, b);
  }

  private matches(row: Row): boolean {
    const query = this.filterLower;
    if (query === '') {
      return true;
    }
    return this.columnsValue.some((column) => rawCell(row, column).toLowerCase().includes(query));
  }

  private rebuild(): void {
    const rows: Row[] = [];
    for (const row of this.rows.values()) {
      if (this.matches(row)) {
        rows.push(row);
      }
    }
    const keys = rows.map((row) => this.keyOf(row));
    const order = rows.map((_, i) => i);
    order.sort((i, j) => this.compare(keys[i] ?? 0, rows[i] as Row, keys[j] ?? 0, rows[j] as Row));
    this.viewRows = order.map((i) => rows[i] as Row);
    this.viewKeys = order.map((i) => keys[i] ?? 0);
    this.revisionValue += 1;
  }

  // The first place in the view whose row does not sort before this key and row.
  private lowerBound(key: SortKey, row: Row): number {
    let low = 0;
    let high = this.viewRows.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compare(this.viewKeys[mid] ?? 0, this.viewRows[mid] as Row, key, row) < 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  private find(row: Row): number {
    const index = this.lowerBound(this.keyOf(row), row);
    return this.viewRows[index] === row ? index : -1;
  }

  // Puts after in the place of before when it sorts there too (between the rows either side) and
  // passes the filter; false (nothing changed) otherwise.
  private replaceInView(before: Row, after: Row): boolean {
    if (!this.matches(after)) {
      return false;
    }
    const index = this.find(before);
    if (index < 0) {
      return false;
    }
    const key = this.keyOf(after);
    const previous = index - 1;
    const next = index + 1;
    if (previous >= 0 && this.compare(this.viewKeys[previous] ?? 0, this.viewRows[previous] as Row, key, after) >= 0) {
      return false;
    }
    if (next < this.viewRows.length && this.compare(key, after, this.viewKeys[next] ?? 0, this.viewRows[next] as Row) >= 0) {
      return false;
    }
    this.viewRows[index] = after;
    this.viewKeys[index] = key;
    return true;
  }

  private removeFromView(row: Row): void {
    const index = this.find(row);
    if (index >= 0) {
      this.viewRows.splice(index, 1);
      this.viewKeys.splice(index, 1);
    }
  }

  private insertIntoView(row: Row): void {
    if (!this.matches(row)) {
      return;
    }
    const key = this.keyOf(row);
    const index = this.lowerBound(key, row);
    this.viewRows.splice(index, 0, row);
    this.viewKeys.splice(index, 0, key);
  }
}
