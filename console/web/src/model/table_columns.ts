// The columns the console shows for a Table: a Namespace column first when listing across
// namespaces, then the server's columns, priority 0 first (kubectl's default columns), then the
// others by priority (kubectl's -o wide). And each column's sort key and cell text.
import { humanAge, instantOf, naturalKey, numberKey } from './table_cells';
import { nameColumnIndex, type Row, type ServerColumn, type SortAs } from './table_data';

export const NAMESPACE_COLUMN_ID = 'Namespace';

export interface ViewColumn {
  // What names the column in a URL ("Name", "Age"): the server's column name.
  readonly id: string;
  readonly label: string;
  readonly description: string;
  // The server's cell index, or the row's namespace.
  readonly source: number | 'namespace';
  readonly sortAs: SortAs;
  // kubectl's Age column: shown from creationTimestamp, so it stays current.
  readonly isAge: boolean;
  // The column naming the row (its row header).
  readonly isName: boolean;
  readonly priority: number;
}

function sortAsOf(column: ServerColumn): SortAs {
  if (column.type === 'integer' || column.type === 'number') {
    return 'number';
  }
  if (column.type === 'date' || column.format === 'date' || column.name.toLowerCase() === 'age') {
    return 'time';
  }
  return 'text';
}

export function viewColumns(server: readonly ServerColumn[], withNamespace: boolean): ViewColumn[] {
  const nameIndex = nameColumnIndex(server);
  const ids = new Set<string>();
  const columns: ViewColumn[] = [];
  if (withNamespace) {
    ids.add(NAMESPACE_COLUMN_ID);
    columns.push({
      id: NAMESPACE_COLUMN_ID,
      label: NAMESPACE_COLUMN_ID,
      description: 'The namespace of the object.',
      source: 'namespace',
      sortAs: 'text',
      isAge: false,
      isName: false,
      priority: 0,
    });
  }
  const ordered = server.map((column, index) => ({ column, index }));
  // Array.prototype.sort is stable: equal priorities keep the server's order.
  ordered.sort((a, b) => Math.max(a.column.priority, 0) - Math.max(b.column.priority, 0));
  for (const { column, index } of ordered) {
    let id = column.name !== '' ? column.name : `column${index + 1}`;
    for (let n = 2; ids.has(id); n += 1) {
      id = `${column.name}${n}`;
    }
    ids.add(id);
    columns.push({
      id,
      label: column.name,
      description: column.description,
      source: index,
      sortAs: sortAsOf(column),
      isAge: column.name.toLowerCase() === 'age',
      isName: index === nameIndex,
      priority: column.priority,
    });
  }
  return columns;
}

// The text the server sent for this column (the namespace for the Namespace column).
export function rawCell(row: Row, column: ViewColumn): string {
  return column.source === 'namespace' ? row.namespace : (row.cells[column.source] ?? '');
}

// The text shown: the age recomputed for now when the row has a creationTimestamp.
export function shownCell(row: Row, column: ViewColumn, now: number): string {
  if (column.isAge && Number.isFinite(row.created)) {
    return humanAge(now - row.created);
  }
  return rawCell(row, column);
}

export type SortKey = number | string;

// The key a column sorts rows by: numbers by value, times by age (youngest first), text
// naturally. NaN for a cell without a value (or empty); those sort last either way.
export function sortKeyOf(row: Row, column: ViewColumn): SortKey {
  const text = rawCell(row, column);
  switch (column.sortAs) {
    case 'number':
      return numberKey(text);
    case 'time': {
      const instant = column.isAge && Number.isFinite(row.created) ? row.created : instantOf(text, row.receivedAt);
      return -instant;
    }
    case 'text':
      return text === '' ? Number.NaN : naturalKey(text);
  }
}
