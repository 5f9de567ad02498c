// The server's Table (meta.k8s.io/v1): its columns and rows, read from untrusted JSON into the
// little the console keeps: each row's cells as text and its object's metadata (uid, name,
// namespace, resourceVersion, creationTimestamp). The rest (managedFields...) is dropped.
import { ApiError } from './errors';
import { arrayField, field, isObject, numberField, stringField } from './json';
import { cellText, parseTimestamp } from './table_cells';

export type SortAs = 'number' | 'time' | 'text';

export interface ServerColumn {
  readonly name: string;
  // The OpenAPI type: "string", "integer", "number", "boolean", "date".
  readonly type: string;
  // "name", "date", ...
  readonly format: string;
  readonly description: string;
  // 0 for the columns kubectl prints by default; higher for -o wide.
  readonly priority: number;
}

export interface Row {
  // The object's uid; "namespace/name" when the server sent none.
  readonly key: string;
  readonly name: string;
  // "" for cluster-scoped objects.
  readonly namespace: string;
  readonly resourceVersion: string;
  // creationTimestamp in ms since the epoch; NaN when unknown.
  readonly created: number;
  // When the row arrived, in ms since the epoch (ages in cells count back from it).
  readonly receivedAt: number;
  // One text per server column, in the server's column order.
  readonly cells: readonly string[];
}

export interface ParsedTable {
  readonly columns: readonly ServerColumn[];
  readonly rows: readonly Row[];
  readonly resourceVersion: string;
  // metadata.continue: "" on the last page.
  readonly continueToken: string;
}

function decodeError(message: string): ApiError {
  return new ApiError('decode', message);
}

export function parseColumns(value: unknown): ServerColumn[] {
  const definitions = arrayField(value, 'columnDefinitions') ?? [];
  return definitions.filter(isObject).map((c) => ({
    name: stringField(c, 'name') ?? '',
    type: stringField(c, 'type') ?? 'string',
    format: stringField(c, 'format') ?? '',
    description: stringField(c, 'description') ?? '',
    priority: numberField(c, 'priority') ?? 0,
  }));
}

// The index of the column holding the name: the one of format "name", else the first.
export function nameColumnIndex(columns: readonly ServerColumn[]): number {
  const index = columns.findIndex((c) => c.format === 'name');
  return index >= 0 ? index : 0;
}

// One row of a Table, with as many cells as there are columns (missing ones empty); undefined
// when it has neither a uid nor a name to key it by.
export function parseRow(value: unknown, columnCount: number, nameIndex: number, receivedAt: number): Row | undefined {
  const rawCells = arrayField(value, 'cells');
  if (rawCells === undefined) {
    return undefined;
  }
  const cells: string[] = [];
  for (let i = 0; i < columnCount; i += 1) {
    cells.push(cellText(rawCells[i]));
  }
  const metadata = field(field(value, 'object'), 'metadata');
  const name = stringField(metadata, 'name') ?? cells[nameIndex] ?? '';
  const namespace = stringField(metadata, 'namespace') ?? '';
  const uid = stringField(metadata, 'uid') ?? '';
  if (uid === '' && name === '') {
    return undefined;
  }
  const created = parseTimestamp(stringField(metadata, 'creationTimestamp') ?? '') ?? Number.NaN;
  return {
    key: uid !== '' ? uid : `${namespace}/${name}`,
    name,
    namespace,
    resourceVersion: stringField(metadata, 'resourceVersion') ?? '',
    created,
    receivedAt,
    cells,
  };
}

// The columns of a plain list: a server may answer the Table request with one (the Accept
// header allows application/json), and the console then shows names and ages.
export const PLAIN_COLUMNS: readonly ServerColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the object.', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: 'Time since the object was created.', priority: 0 },
];

// An object as a row of PLAIN_COLUMNS (its Age is shown from its creationTimestamp).
function plainRow(object: unknown, receivedAt: number): Row | undefined {
  const name = stringField(field(object, 'metadata'), 'name') ?? '';
  return parseRow({ cells: [name, ''], object }, PLAIN_COLUMNS.length, 0, receivedAt);
}

// A Table response (one page of a LIST), or a plain list read as one. columns, when given, are
// the list's: a watch event's Table is read with them.
export function parseTable(value: unknown, receivedAt: number, columns?: readonly ServerColumn[]): ParsedTable {
  const kind = stringField(value, 'kind');
  const items = arrayField(value, 'items');
  if (kind !== 'Table' && items === undefined) {
    throw decodeError(`expected a Table, got ${kind ?? 'no kind'}`);
  }
  const cols = kind === 'Table' ? (columns ?? parseColumns(value)) : PLAIN_COLUMNS;
  const nameIndex = nameColumnIndex(cols);
  const rows: Row[] = [];
  for (const item of kind === 'Table' ? (arrayField(value, 'rows') ?? []) : (items ?? [])) {
    const row = kind === 'Table' ? parseRow(item, cols.length, nameIndex, receivedAt) : plainRow(item, receivedAt);
    if (row) {
      rows.push(row);
    }
  }
  const metadata = field(value, 'metadata');
  return {
    columns: cols,
    rows,
    resourceVersion: stringField(metadata, 'resourceVersion') ?? '',
    continueToken: stringField(metadata, 'continue') ?? '',
  };
}

// A row of a watch event with the object the server put in it: the whole object when the watch
// asked for includeObject=Object, else its metadata (a PartialObjectMetadata).
export interface EventItem {
  readonly row: Row;
  readonly object: unknown;
}

// The rows of a watch event's object: a Table's rows, or the object itself when the server sent
// it plain.
export function eventItems(object: unknown, receivedAt: number, columns: readonly ServerColumn[]): EventItem[] {
  if (stringField(object, 'kind') === 'Table') {
    const nameIndex = nameColumnIndex(columns);
    const items: EventItem[] = [];
    for (const raw of arrayField(object, 'rows') ?? []) {
      const row = parseRow(raw, columns.length, nameIndex, receivedAt);
      if (row) {
        items.push({ row, object: field(raw, 'object') });
      }
    }
    return items;
  }
  if (field(object, 'metadata') === undefined) {
    throw decodeError('the watch sent an event without an object');
  }
  const row = plainRow(object, receivedAt);
  return row ? [{ row, object }] : [];
}

// The same columns, by name, type and order (a watch event may carry them again).
export function sameColumns(a: readonly ServerColumn[], b: readonly ServerColumn[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]?.name && c.type === b[i]?.type);
}
