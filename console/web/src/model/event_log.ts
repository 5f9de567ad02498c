// The log of watch events: bounded (the oldest entry goes first when it is full, and is counted),
// numbered in order of arrival, and pausable: while paused, events are still recorded but the view
// stays as it was, with a count of those held back. The view is the entries the filter passes,
// newest first.
import type { JsonObject } from './json';
import type { ResourceRef } from './resource_ref';

export const EVENT_LOG_CAPACITY = 5000;

export type LoggedType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export const LOGGED_TYPES: readonly LoggedType[] = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'];

export interface LoggedEvent {
  // 1 for the first event this page received, then one more for each; never reused.
  readonly seq: number;
  // When it arrived, in ms since the epoch.
  readonly receivedAt: number;
  readonly type: LoggedType;
  // The resource whose watch delivered it, and its kind.
  readonly ref: ResourceRef;
  readonly kind: string;
  // "" for a cluster-scoped object; a BOOKMARK has the watch's namespace ("" for all).
  readonly namespace: string;
  // "" for a BOOKMARK.
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  // The object as of the event: null for a BOOKMARK, or when the server sent its metadata only.
  readonly object: JsonObject | null;
  // The version before it, as this page saw it last: null for ADDED, or when no earlier version
  // was seen in this page's life (see ObjectVersions).
  readonly previous: JsonObject | null;
}

// Which events the view lists: of a type not hidden, of the kind chosen and in the namespace
// chosen ("" for any).
export interface EventFilter {
  readonly hiddenTypes: ReadonlySet<LoggedType>;
  readonly kind: string;
  readonly namespace: string;
}

export const DEFAULT_EVENT_FILTER: EventFilter = { hiddenTypes: new Set(['BOOKMARK']), kind: '', namespace: '' };

export function matchesFilter(event: LoggedEvent, filter: EventFilter): boolean {
  return (
    !filter.hiddenTypes.has(event.type) &&
    (filter.kind === '' || event.kind === filter.kind) &&
    (filter.namespace === '' || event.namespace === filter.namespace)
  );
}

// Counts of the values held, so that the filter's choices need no scan.
class Tally {
  private readonly counts = new Map<string, number>();

  add(value: string): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }

  remove(value: string): void {
    const count = (this.counts.get(value) ?? 0) - 1;
    if (count > 0) {
      this.counts.set(value, count);
    } else {
      this.counts.delete(value);
    }
  }

  clear(): void {
    this.counts.clear();
  }

  // Each value held, sorted; "" left out.
  values(): string[] {
    return [...this.counts.keys()].filter((v) => v !== '').sort();
  }
}

export class EventLog {
  readonly capacity: number;
  // A ring: the oldest entry at head, `length` entries in all.
  private readonly ring: (LoggedEvent | undefined)[];
  private head = 0;
  private length = 0;
  private lastSeq = 0;
  private droppedValue = 0;
  // The last seq shown when paused; undefined when live.
  private pausedAt: number | undefined;
  private revisionValue = 0;
  private readonly kindTally = new Tally();
  private readonly namespaceTally = new Tally();
  private viewCache: { revision: number; filter: EventFilter; events: readonly LoggedEvent[] } | undefined;

  // onRemove hears of each entry that leaves the log (dropped when full, or cleared).
  constructor(
    capacity = EVENT_LOG_CAPACITY,
    private readonly onRemove: (event: LoggedEvent) => void = () => {},
  ) {
    this.capacity = Math.max(Math.floor(capacity), 1);
    this.ring = new Array<LoggedEvent | undefined>(this.capacity);
  }

  get size(): number {
    return this.length;
  }

  // Entries dropped because the log was full, since it was created or cleared.
  get dropped(): number {
    return this.droppedValue;
  }

  get paused(): boolean {
    return this.pausedAt !== undefined;
  }

  // Events recorded since the pause and still in the log: those the view does not show yet.
  get held(): number {
    return this.pausedAt === undefined ? 0 : Math.min(this.lastSeq - this.pausedAt, this.length);
  }

  // Changes with every change of what the view may show.
  get revision(): number {
    return this.revisionValue;
  }

  // Appends an event, numbering it; the oldest entry is dropped when the log is full.
  append(event: Omit<LoggedEvent, 'seq'>): LoggedEvent {
    if (this.length === this.capacity) {
      const oldest = this.ring[this.head];
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.length -= 1;
      this.droppedValue += 1;
      if (oldest) {
        this.forget(oldest);
      }
    }
    this.lastSeq += 1;
    const entry: LoggedEvent = { ...event, seq: this.lastSeq };
    this.ring[(this.head + this.length) % this.capacity] = entry;
    this.length += 1;
    this.kindTally.add(entry.kind);
    this.namespaceTally.add(entry.namespace);
    this.revisionValue += 1;
    return entry;
  }

  // Empties the log (and its count of dropped entries); numbering goes on.
  clear(): void {
    const removed = this.entries();
    this.ring.fill(undefined);
    this.head = 0;
    this.length = 0;
    this.droppedValue = 0;
    this.kindTally.clear();
    this.namespaceTally.clear();
    if (this.pausedAt !== undefined) {
      this.pausedAt = this.lastSeq;
    }
    this.revisionValue += 1;
    for (const event of removed) {
      this.onRemove(event);
    }
  }

  setPaused(paused: boolean): void {
    if (paused === this.paused) {
      return;
    }
    this.pausedAt = paused ? this.lastSeq : undefined;
    this.revisionValue += 1;
  }

  // The entry numbered seq, while it is in the log.
  get(seq: number): LoggedEvent | undefined {
    const offset = seq - (this.lastSeq - this.length + 1);
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.length) {
      return undefined;
    }
    return this.ring[(this.head + offset) % this.capacity];
  }

  // Every entry, oldest first.
  entries(): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (let i = 0; i < this.length; i += 1) {
      const entry = this.ring[(this.head + i) % this.capacity];
      if (entry) {
        out.push(entry);
      }
    }
    return out;
  }

  // The newest entry that satisfies test, paused or not.
  findLast(test: (event: LoggedEvent) => boolean): LoggedEvent | undefined {
    for (let i = this.length - 1; i >= 0; i -= 1) {
      const entry = this.ring[(this.head + i) % this.capacity];
      if (entry && test(entry)) {
        return entry;
      }
    }
    return undefined;
  }

  // What the view lists: the entries the filter passes, newest first; while paused, only those
  // recorded before the pause. The same array until the log or the filter changes.
  view(filter: EventFilter): readonly LoggedEvent[] {
    const cached = this.viewCache;
    if (cached && cached.revision === this.revisionValue && cached.filter === filter) {
      return cached.events;
    }
    const limit = this.pausedAt ?? this.lastSeq;
    const events: LoggedEvent[] = [];
    for (let i = this.length - 1; i >= 0; i -= 1) {
      const entry = this.ring[(this.head + i) % this.capacity];
      if (entry && entry.seq <= limit && matchesFilter(entry, filter)) {
        events.push(entry);
      }
    }
    this.viewCache = { revision: this.revisionValue, filter, events };
    return events;
  }

  // The kinds, and the namespaces, of the entries held: each once, sorted (the filter's choices).
  kinds(): string[] {
    return this.kindTally.values();
  }

  namespaces(): string[] {
    return this.namespaceTally.values();
  }

  private forget(event: LoggedEvent): void {
    this.kindTally.remove(event.kind);
    this.namespaceTally.remove(event.namespace);
    this.onRemove(event);
  }
}

// The place of the event numbered seq in a view (newest first); -1 when it is not there.
export function indexInView(view: readonly LoggedEvent[], seq: number): number {
  let low = 0;
  let high = view.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((view[mid]?.seq ?? 0) > seq) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return view[low]?.seq === seq ? low : -1;
}
