// The last whole version of each object (by uid) that the watches delivered, so that each logged
// event can carry the version before it. Bounded by the log: an object's version is kept only
// while an event of that object is in the log (each event holds a reference, released when the
// log drops it), so nothing outlives the events that show it.
import type { JsonObject } from './json';

interface Held {
  // null: the last event of the uid carried no whole object (its metadata only), so the version
  // before the next one is not known.
  object: JsonObject | null;
  references: number;
}

export class ObjectVersions {
  private readonly byUid = new Map<string, Held>();

  // The number of objects held.
  get size(): number {
    return this.byUid.size;
  }

  // Records that an event of uid brought object (null when it carried none) and returns the
  // version before it: the one seen last, else `fallback` (a version seen elsewhere, such as the
  // detail pane's), else null. ADDED has no version before. Each call takes a reference that
  // release() gives back.
  record(uid: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: JsonObject | null, fallback?: JsonObject): JsonObject | null {
    const held = this.byUid.get(uid);
    const before = type === 'ADDED' ? null : (held?.object ?? fallback ?? null);
    if (held) {
      held.object = object;
      held.references += 1;
    } else {
      this.byUid.set(uid, { object, references: 1 });
    }
    return before;
  }

  // The last version held of uid.
  latest(uid: string): JsonObject | null {
    return this.byUid.get(uid)?.object ?? null;
  }

  // Gives back the reference of an event that left the log; the version goes with the last one.
  release(uid: string): void {
    const held = this.byUid.get(uid);
    if (!held) {
      return;
    }
    held.references -= 1;
    if (held.references <= 0) {
      this.byUid.delete(uid);
    }
  }
}
