// One line of a watch: a WatchEvent whose object is a Table of one row (ADDED, MODIFIED,
// DELETED; or the object itself from a server that does not do Tables), each row with its object, an object carrying only
// a resourceVersion (BOOKMARK), or a Status (ERROR).
import { ApiError, errorFromStatus } from './errors';
import { field, parseJson, stringField } from './json';
import { eventItems, parseColumns, sameColumns, type EventItem, type ServerColumn } from './table_data';

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly items: readonly EventItem[]; readonly resourceVersion: string }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string }
  | { readonly type: 'ERROR'; readonly error: ApiError }
  // The event's Table has other columns than the list's: the list must be read again.
  | { readonly type: 'COLUMNS_CHANGED' };

function resourceVersionOf(object: unknown): string {
  return stringField(field(object, 'metadata'), 'resourceVersion') ?? '';
}

// Throws an ApiError of kind 'decode' for a line that is not a WatchEvent.
export function parseWatchEvent(line: string, columns: readonly ServerColumn[], receivedAt: number): WatchEvent {
  const value = parseJson(line);
  const type = stringField(value, 'type');
  const object = field(value, 'object');
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED': {
      const sent = parseColumns(object);
      if (sent.length > 0 && !sameColumns(sent, columns)) {
        return { type: 'COLUMNS_CHANGED' };
      }
      const items = eventItems(object, receivedAt, columns);
      const last = items[items.length - 1];
      return { type, items, resourceVersion: last?.row.resourceVersion || resourceVersionOf(object) };
    }
    case 'BOOKMARK':
      return { type, resourceVersion: resourceVersionOf(object) };
    case 'ERROR':
      return {
        type,
        error: errorFromStatus(object) ?? new ApiError('decode', 'the watch sent an ERROR event without a Status'),
      };
    default:
      throw new ApiError('decode', `the watch sent a line that is not an event: ${line.slice(0, 120)}`);
  }
}
