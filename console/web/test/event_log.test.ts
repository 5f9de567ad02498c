import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_EVENT_FILTER, EventLog, indexInView, matchesFilter, type EventFilter, type LoggedEvent, type LoggedType } from '../src/model/event_log';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

function event(name: string, options: { type?: LoggedType; kind?: string; namespace?: string; rv?: string } = {}): Omit<LoggedEvent, 'seq'> {
  return {
    receivedAt: 1_700_000_000_000,
    type: options.type ?? 'MODIFIED',
    ref: CONFIGMAPS,
    kind: options.kind ?? 'ConfigMap',
    namespace: options.namespace ?? 'default',
    name,
    uid: `uid-${name}`,
    resourceVersion: options.rv ?? '1',
    object: null,
    previous: null,
  };
}

function names(events: readonly LoggedEvent[]): string[] {
  return events.map((e) => e.name);
}

const ALL: EventFilter = { hiddenTypes: new Set(), kind: '', namespace: '' };

describe('event log', () => {
  test('numbers events and lists them newest first', () => {
    const log = new EventLog(10);
    const a = log.append(event('a'));
    const b = log.append(event('b'));
    assert.deepEqual([a.seq, b.seq], [1, 2]);
    assert.deepEqual(names(log.view(ALL)), ['b', 'a']);
    assert.equal(log.get(1)?.name, 'a');
    assert.equal(log.get(3), undefined);
  });

  test('is bounded: the oldest go first, counted, and are handed back', () => {
    const removed: string[] = [];
    const log = new EventLog(3, (e) => removed.push(e.name));
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      log.append(event(name));
    }
    assert.equal(log.size, 3);
    assert.equal(log.dropped, 2);
    assert.deepEqual(removed, ['a', 'b']);
    assert.deepEqual(names(log.entries()), ['c', 'd', 'e']);
    assert.deepEqual(names(log.view(ALL)), ['e', 'd', 'c']);
    assert.equal(log.get(2), undefined);
    assert.equal(log.get(3)?.name, 'c');
    assert.equal(log.get(5)?.name, 'e');
  });

  test('5,000 by default; 20,000 events keep the last 5,000', () => {
    const log = new EventLog();
    for (let i = 0; i < 20_000; i += 1) {
      log.append(event(`cm-${i}`));
    }
    assert.equal(log.size, 5000);
    assert.equal(log.dropped, 15_000);
    assert.equal(log.view(ALL)[0]?.name, 'cm-19999');
    assert.equal(log.view(ALL)[4999]?.name, 'cm-15000');
  });

  test('filters by type, kind and namespace; bookmarks hidden by default', () => {
    const log = new EventLog(10);
    log.append(event('a', { type: 'ADDED' }));
    log.append(event('', { type: 'BOOKMARK' }));
    log.append(event('b', { type: 'DELETED', namespace: 'demo' }));
    log.append(event('n', { kind: 'Namespace', namespace: '' }));
    assert.deepEqual(names(log.view(DEFAULT_EVENT_FILTER)), ['n', 'b', 'a']);
    assert.deepEqual(names(log.view({ ...ALL, hiddenTypes: new Set(['ADDED', 'MODIFIED']) })), ['b', '']);
    assert.deepEqual(names(log.view({ ...DEFAULT_EVENT_FILTER, kind: 'ConfigMap' })), ['b', 'a']);
    assert.deepEqual(names(log.view({ ...DEFAULT_EVENT_FILTER, namespace: 'demo' })), ['b']);
    assert.equal(matchesFilter(event('x', { type: 'BOOKMARK' }) as LoggedEvent, DEFAULT_EVENT_FILTER), false);
  });

  test('the filter choices are what the log holds', () => {
    const log = new EventLog(2);
    log.append(event('n', { kind: 'Namespace', namespace: '' }));
    log.append(event('a', { namespace: 'demo' }));
    assert.deepEqual(log.kinds(), ['ConfigMap', 'Namespace']);
    assert.deepEqual(log.namespaces(), ['demo']);
    log.append(event('b', { kind: 'Secret', namespace: 'prod' }));
    assert.deepEqual(log.kinds(), ['ConfigMap', 'Secret']);
    assert.deepEqual(log.namespaces(), ['demo', 'prod']);
  });

  test('paused: events are recorded and counted, the view stays as it was', () => {
    const log = new EventLog(10);
    log.append(event('a'));
    log.setPaused(true);
    log.append(event('b'));
    log.append(event('c'));
    assert.equal(log.size, 3);
    assert.equal(log.held, 2);
    assert.deepEqual(names(log.view(ALL)), ['a']);
    log.setPaused(false);
    assert.equal(log.held, 0);
    assert.deepEqual(names(log.view(ALL)), ['c', 'b', 'a']);
  });

  test('paused and full: the held count stays within the log', () => {
    const log = new EventLog(3);
    log.append(event('a'));
    log.setPaused(true);
    for (const name of ['b', 'c', 'd', 'e']) {
      log.append(event(name));
    }
    assert.equal(log.held, 3);
    assert.deepEqual(names(log.view(ALL)), []);
  });

  test('clear empties the log and hands every entry back; numbering goes on', () => {
    const removed: string[] = [];
    const log = new EventLog(2, (e) => removed.push(e.name));
    log.append(event('a'));
    log.append(event('b'));
    log.append(event('c'));
    log.clear();
    assert.deepEqual(removed, ['a', 'b', 'c']);
    assert.equal(log.size, 0);
    assert.equal(log.dropped, 0);
    assert.deepEqual(log.kinds(), []);
    assert.equal(log.append(event('d')).seq, 4);
    assert.deepEqual(names(log.view(ALL)), ['d']);
  });

  test('clear while paused: what arrives next is held', () => {
    const log = new EventLog(5);
    log.append(event('a'));
    log.setPaused(true);
    log.clear();
    log.append(event('b'));
    assert.equal(log.held, 1);
    assert.deepEqual(names(log.view(ALL)), []);
  });

  test('the view is the same array until something changes', () => {
    const log = new EventLog(5);
    log.append(event('a'));
    const first = log.view(ALL);
    assert.equal(log.view(ALL), first);
    log.append(event('b'));
    assert.notEqual(log.view(ALL), first);
  });

  test('findLast finds the newest match', () => {
    const log = new EventLog(5);
    log.append(event('a', { rv: '1' }));
    log.append(event('a', { rv: '2' }));
    assert.equal(log.findLast((e) => e.name === 'a')?.resourceVersion, '2');
    assert.equal(log.findLast((e) => e.name === 'z'), undefined);
  });
});

describe('index in view', () => {
  test('finds an event by number in a view, newest first', () => {
    const log = new EventLog(10);
    for (const name of ['a', 'b', 'c', 'd']) {
      log.append(event(name, { type: name === 'b' ? 'BOOKMARK' : 'MODIFIED' }));
    }
    const view = log.view(DEFAULT_EVENT_FILTER);
    assert.deepEqual(names(view), ['d', 'c', 'a']);
    assert.equal(indexInView(view, 4), 0);
    assert.equal(indexInView(view, 3), 1);
    assert.equal(indexInView(view, 1), 2);
    assert.equal(indexInView(view, 2), -1);
    assert.equal(indexInView(view, 9), -1);
    assert.equal(indexInView([], 1), -1);
  });
});
