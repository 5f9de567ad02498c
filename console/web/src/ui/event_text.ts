// The words of the events pane and of an event in the detail pane. Pure, so tested without a
// browser.
import type { LoggedEvent } from '../model/event_log';
import type { ObjectDiff } from '../model/json_diff';
import { formatCount } from './status_text';

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

// The local time of day to the millisecond: "14:03:27.041".
export function clockText(ms: number): string {
  const t = new Date(ms);
  return `${pad(t.getHours(), 2)}:${pad(t.getMinutes(), 2)}:${pad(t.getSeconds(), 2)}.${pad(t.getMilliseconds(), 3)}`;
}

// "namespace/name", "name" when cluster-scoped; a bookmark names the watch's namespace, if any.
export function eventObjectText(event: LoggedEvent): string {
  if (event.type === 'BOOKMARK') {
    return event.namespace === '' ? '(bookmark)' : `${event.namespace} (bookmark)`;
  }
  return event.namespace === '' ? event.name : `${event.namespace}/${event.name}`;
}

// "1,204 events · 3 dropped".
export function logCountText(size: number, dropped: number): string {
  const events = `${formatCount(size)} ${size === 1 ? 'event' : 'events'}`;
  return dropped > 0 ? `${events} · ${formatCount(dropped)} dropped` : events;
}

// The pause note: "Paused · 12 new".
export function pausedText(held: number): string {
  return `Paused · ${formatCount(held)} new`;
}

// What the view shows when it lists nothing.
export function emptyLogText(logSize: number, paused: boolean): string {
  if (logSize === 0) {
    return 'No watch events yet: changes to the objects of the table shown (and to namespaces) appear here as the server reports them.';
  }
  return paused ? 'Paused before any event passed the filter.' : 'No event passes the filter.';
}

// An event's line in the detail pane: "MODIFIED at resourceVersion 4242, 14:03:27.041".
export function eventSummary(event: LoggedEvent): string {
  return `${event.type} at resourceVersion ${event.resourceVersion}, ${clockText(event.receivedAt)}`;
}

// Why an event's diff cannot be shown; undefined when it can.
export function missingDiffText(event: LoggedEvent): string | undefined {
  if (event.object === null) {
    return 'The server sent only the metadata of this version (it ignored includeObject=Object): there is nothing to compare.';
  }
  if (event.type === 'ADDED') {
    return 'ADDED: the object was created by this event, so there is no version before it.';
  }
  if (event.previous === null) {
    return (
      'The version before this one was not seen by this page: the table is listed with metadata only, ' +
      'and the watch delivered no earlier version of this object that is still in the log.'
    );
  }
  return undefined;
}

// The counts of a diff: "1 changed · 2 added · 1 removed"; "No change" when none.
export function diffSummary(diff: ObjectDiff, noiseHidden: boolean): string {
  const parts: string[] = [];
  if (diff.changed > 0) {
    parts.push(`${formatCount(diff.changed)} changed`);
  }
  if (diff.added > 0) {
    parts.push(`${formatCount(diff.added)} added`);
  }
  if (diff.removed > 0) {
    parts.push(`${formatCount(diff.removed)} removed`);
  }
  if (parts.length > 0) {
    return parts.join(' · ');
  }
  return noiseHidden ? 'No change besides resourceVersion, generation and managedFields.' : 'No change.';
}

// The note shown when the route's event is no longer in the log.
export function goneEventText(resourceVersion: string, kind: string, capacity: number): string {
  return (
    `The ${kind} event at resourceVersion ${resourceVersion} is not in this page's log (it keeps the last ` +
    `${formatCount(capacity)} events, only while the page is open). The object as it is now is shown.`
  );
}
