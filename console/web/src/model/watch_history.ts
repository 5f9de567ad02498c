// The watch events the console's feeds delivered, as the events pane shows them: the log (bounded,
// pausable), the filter of its view, and for each event the object as of it and the version
// before it (kept per uid while the log holds an event of it).
import { EventLog, DEFAULT_EVENT_FILTER, type EventFilter, type LoggedEvent, type LoggedType } from './event_log';
import { field, isObject, stringField, type JsonObject } from './json';
import { ObjectVersions } from './object_versions';
import { resourceKey, type ResourceRef } from './resource_ref';
import { Signal } from './signal';
import type { FeedEvent } from './table_feed';

// Where a batch of events comes from: the resource watched, its kind, and its namespace ("" for
// all namespaces or a cluster-scoped resource).
export interface EventSource {
  readonly ref: ResourceRef;
  readonly kind: string;
  readonly namespace: string;
}

// A whole object, not the PartialObjectMetadata a server sends when it ignores includeObject.
function wholeObject(value: unknown): JsonObject | null {
  if (!isObject(value) || !isObject(value['metadata'])) {
    return null;
  }
  return stringField(value, 'kind') === 'PartialObjectMetadata' ? null : value;
}

function resourceVersionOf(object: unknown): string {
  return stringField(field(object, 'metadata'), 'resourceVersion') ?? '';
}

export class WatchHistory {
  readonly changed = new Signal();
  readonly log: EventLog;
  private readonly versions = new ObjectVersions();
  private filterValue: EventFilter = DEFAULT_EVENT_FILTER;

  constructor(capacity?: number) {
    this.log = new EventLog(capacity, (event) => {
      if (event.uid !== '') {
        this.versions.release(event.uid);
      }
    });
  }

  get filter(): EventFilter {
    return this.filterValue;
  }

  // The objects held for diffs (at most one per uid with an event in the log).
  get objectsHeld(): number {
    return this.versions.size;
  }

  // Logs a batch from a feed. seen, when given, returns another version of an object by uid that
  // the page holds (the detail pane's), used as the version before when the log has none.
  record(batch: readonly FeedEvent[], source: EventSource, seen?: (uid: string) => JsonObject | undefined): void {
    if (batch.length === 0) {
      return;
    }
    for (const event of batch) {
      const common = { receivedAt: event.receivedAt, type: event.type, ref: source.ref, kind: source.kind };
      if (event.type === 'BOOKMARK') {
        this.log.append({
          ...common,
          namespace: source.namespace,
          name: '',
          uid: '',
          resourceVersion: event.resourceVersion,
          object: null,
          previous: null,
        });
        continue;
      }
      const { row } = event;
      const object = wholeObject(event.object);
      const uid = stringField(field(event.object, 'metadata'), 'uid') ?? row.key;
      const other = seen?.(uid);
      const fallback = other && resourceVersionOf(other) !== row.resourceVersion ? other : undefined;
      const previous = this.versions.record(uid, event.type, object, fallback);
      this.log.append({
        ...common,
        namespace: row.namespace,
        name: row.name,
        uid,
        resourceVersion: row.resourceVersion,
        object,
        previous,
      });
    }
    this.changed.emit();
  }

  // The view: the events the filter passes, newest first (frozen while paused).
  view(): readonly LoggedEvent[] {
    return this.log.view(this.filterValue);
  }

  // The newest event of this object at this resourceVersion still in the log (of the resource in
  // any version).
  find(ref: ResourceRef, namespace: string, name: string, resourceVersion: string): LoggedEvent | undefined {
    return this.log.findLast(
      (e) =>
        e.type !== 'BOOKMARK' &&
        e.resourceVersion === resourceVersion &&
        e.name === name &&
        e.namespace === namespace &&
        resourceKey(e.ref) === resourceKey(ref),
    );
  }

  setTypeShown(type: LoggedType, shown: boolean): void {
    if (this.filterValue.hiddenTypes.has(type) !== shown) {
      return;
    }
    const hiddenTypes = new Set(this.filterValue.hiddenTypes);
    if (shown) {
      hiddenTypes.delete(type);
    } else {
      hiddenTypes.add(type);
    }
    this.setFilter({ ...this.filterValue, hiddenTypes });
  }

  setKind(kind: string): void {
    this.setFilter({ ...this.filterValue, kind });
  }

  setNamespace(namespace: string): void {
    this.setFilter({ ...this.filterValue, namespace });
  }

  setPaused(paused: boolean): void {
    if (paused !== this.log.paused) {
      this.log.setPaused(paused);
      this.changed.emit();
    }
  }

  clear(): void {
    this.log.clear();
    this.changed.emit();
  }

  private setFilter(filter: EventFilter): void {
    const now = this.filterValue;
    if (filter.kind === now.kind && filter.namespace === now.namespace && sameSet(filter.hiddenTypes, now.hiddenTypes)) {
      return;
    }
    this.filterValue = filter;
    this.changed.emit();
  }
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((v) => b.has(v));
}
