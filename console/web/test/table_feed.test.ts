import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiClient } from '../src/model/api_client';
import { ACCEPT_TABLE } from '../src/model/http';
import { field, stringField } from '../src/model/json';
import { TableFeed, type FeedEvent } from '../src/model/table_feed';
import { FakeClock, FakeHttp, json, settle, StreamBody } from './fakes';
import { bookmarkLine, errorLine, table, watchLine } from './tables';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const LIST = '/api/v1/namespaces/default/configmaps';

function names(feed: TableFeed): string[] {
  const out: string[] = [];
  for (let i = 0; i < feed.store.length; i += 1) {
    out.push(feed.store.at(i)?.name ?? '?');
  }
  return out;
}

function setup(): { http: FakeHttp; clock: FakeClock; feed: TableFeed } {
  const http = new FakeHttp();
  const clock = new FakeClock();
  const feed = new TableFeed({ ref: CONFIGMAPS, namespace: 'default', withNamespace: false }, new ApiClient(http.http), clock);
  return { http, clock, feed };
}

describe('table feed', () => {
  test('lists every page, then watches from the list resourceVersion and applies events', async () => {
    const { http, feed } = setup();
    http.onGet(`${LIST}?limit=500`, json(table([{ name: 'a' }, { name: 'b' }], { rv: '20', continue: 'next 1' })));
    http.onGet(`${LIST}?limit=5000&continue=next%201`, json(table([{ name: 'c' }], { rv: '20' })));
    const stream = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream });
    feed.start();
    await settle();
    assert.deepEqual(names(feed), ['a', 'b', 'c']);
    assert.equal(feed.complete, true);
    assert.equal(feed.status.phase, 'live');
    assert.ok(http.requests.every((r) => r.accept === ACCEPT_TABLE));

    // Events split across chunks anywhere, one line each.
    const added = watchLine('ADDED', { name: 'd', rv: '21' });
    stream.write(added.slice(0, 10));
    stream.write(added.slice(10) + watchLine('MODIFIED', { name: 'a', rv: '22', cells: ['a', 9, '1m'] }).slice(0, 5));
    stream.write(watchLine('MODIFIED', { name: 'a', rv: '22', cells: ['a', 9, '1m'] }).slice(5) + watchLine('DELETED', { name: 'b', rv: '23' }));
    await settle();
    assert.deepEqual(names(feed), ['a', 'c', 'd']);
    assert.equal(feed.store.get('uid-default-a')?.cells[1], '9');
    feed.stop();
  });

  test('a watch the server ends resumes from the last resourceVersion (bookmarks too)', async () => {
    const { http, clock, feed } = setup();
    http.onGet(`${LIST}?limit=500`, json(table([{ name: 'a' }], { rv: '20' })));
    const first = new StreamBody();
    const second = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: first });
    http.onGet(`${LIST}?watch=1&resourceVersion=31&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: second });
    feed.start();
    await settle();
    first.write(watchLine('ADDED', { name: 'b', rv: '30' }) + bookmarkLine('31'));
    first.end();
    await clock.advance(10);
    assert.ok(http.paths().some((p) => p.includes('resourceVersion=31')));
    assert.equal(http.paths().filter((p) => p.includes('limit=500')).length, 1);
    assert.deepEqual(names(feed), ['a', 'b']);
    feed.stop();
  });

  test('410 Gone on the watch lists again, replacing the rows only when the new list is complete', async () => {
    const { http, clock, feed } = setup();
    let lists = 0;
    http.onGet(`${LIST}?limit=500`, () => {
      lists += 1;
      return lists === 1
        ? json(table([{ name: 'a' }, { name: 'b' }], { rv: '20' }))
        : json(table([{ name: 'b' }, { name: 'z' }], { rv: '50' }));
    });
    const first = new StreamBody();
    const second = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: first });
    http.onGet(`${LIST}?watch=1&resourceVersion=50&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: second });
    feed.start();
    await settle();
    first.write(errorLine(410, 'Expired', 'too old resource version: 20 (45)'));
    await clock.advance(10);
    assert.equal(lists, 2);
    assert.deepEqual(names(feed), ['b', 'z']);
    assert.equal(feed.status.phase, 'live');
    feed.stop();
  });

  test('a failed list shows the Status message and retries with backoff', async () => {
    const { http, clock, feed } = setup();
    let calls = 0;
    http.onGet(`${LIST}?limit=500`, () => {
      calls += 1;
      return calls < 3
        ? json({ kind: 'Status', status: 'Failure', message: 'configmaps is forbidden: User "x" cannot list', reason: 'Forbidden', code: 403 }, 403)
        : json(table([{ name: 'a' }], { rv: '20' }));
    });
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: new StreamBody() });
    feed.start();
    await settle();
    assert.equal(feed.status.phase, 'retrying');
    assert.equal(feed.status.error?.describe(), 'configmaps is forbidden: User "x" cannot list (Forbidden, 403)');
    await clock.advance(250);
    assert.equal(calls, 2);
    await clock.advance(499);
    assert.equal(calls, 2);
    await clock.advance(1);
    assert.equal(calls, 3);
    assert.equal(feed.status.phase, 'live');
    assert.deepEqual(names(feed), ['a']);
    feed.stop();
  });

  test('a network failure on the watch resumes the watch after a backoff, without a list', async () => {
    const { http, clock, feed } = setup();
    http.onGet(`${LIST}?limit=500`, json(table([{ name: 'a' }], { rv: '20' })));
    let watches = 0;
    const stream = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, () => {
      watches += 1;
      return watches === 1 ? 'network-error' : { status: 200, stream };
    });
    feed.start();
    await settle();
    assert.equal(feed.status.phase, 'retrying');
    assert.match(feed.status.error?.message ?? '', /connection refused/);
    await clock.advance(250);
    assert.equal(watches, 2);
    assert.equal(feed.status.phase, 'live');
    assert.equal(http.paths().filter((p) => p.includes('limit=500')).length, 1);
    feed.stop();
  });

  test('stop aborts the watch in flight', async () => {
    const { http, feed } = setup();
    http.onGet(`${LIST}?limit=500`, json(table([{ name: 'a' }], { rv: '20' })));
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream: new StreamBody() });
    feed.start();
    await settle();
    const watch = http.requests.find((r) => r.path.includes('watch=1'));
    assert.equal(watch?.cancel?.cancelled, false);
    feed.stop();
    assert.equal(watch?.cancel?.cancelled, true);
    assert.equal(feed.running, false);
  });

  test('the list asks for metadata, the watch for whole objects, handed on with each batch', async () => {
    const { http, feed } = setup();
    http.onGet(`${LIST}?limit=500`, json(table([{ name: 'a' }], { rv: '20' })));
    const stream = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream });
    const batches: FeedEvent[][] = [];
    feed.events.subscribe((batch) => batches.push([...batch]));
    feed.start();
    await settle();
    assert.ok(!http.paths()[0]?.includes('includeObject'));
    stream.write(watchLine('MODIFIED', { name: 'a', rv: '21' }) + bookmarkLine('22'));
    await settle();
    assert.equal(batches.length, 1);
    const [modified, bookmark] = batches[0] ?? [];
    assert.ok(modified?.type === 'MODIFIED');
    assert.equal(modified.row.resourceVersion, '21');
    assert.equal(stringField(field(modified.object, 'metadata'), 'name'), 'a');
    assert.deepEqual(bookmark, { type: 'BOOKMARK', resourceVersion: '22', receivedAt: modified.receivedAt });
    feed.stop();
  });

  test('a watch event with other columns lists again', async () => {
    const { http, clock, feed } = setup();
    let lists = 0;
    http.onGet(`${LIST}?limit=500`, () => {
      lists += 1;
      return json(table([{ name: 'a' }], { rv: '20' }));
    });
    const stream = new StreamBody();
    http.onGet(`${LIST}?watch=1&resourceVersion=20&allowWatchBookmarks=true&timeoutSeconds=300&includeObject=Object`, { status: 200, stream });
    feed.start();
    await settle();
    const other = { type: 'ADDED', object: table([{ name: 'b', cells: ['b'] }], {}, [{ name: 'Name', type: 'string', format: 'name' }]) };
    stream.write(`${JSON.stringify(other)}\n`);
    await clock.advance(10);
    assert.equal(lists, 2);
    feed.stop();
  });

  test('a resource without the watch verb is listed again every 10 s, never watched', async () => {
    const http = new FakeHttp();
    const clock = new FakeClock();
    const target = { ref: { group: '', version: 'v1', resource: 'componentstatuses' }, namespace: '', withNamespace: false, watchable: false };
    const feed = new TableFeed(target, new ApiClient(http.http), clock);
    let lists = 0;
    http.onGet('/api/v1/componentstatuses?limit=500', () => {
      lists += 1;
      return json(table(Array.from({ length: lists }, (_, i) => ({ name: `c${i}`, namespace: '' }))));
    });
    feed.start();
    await settle();
    assert.equal(feed.status.phase, 'polled');
    assert.equal(feed.store.size, 1);
    await clock.advance(10_000);
    assert.equal(lists, 2);
    assert.equal(feed.store.size, 2);
    assert.ok(!http.paths().some((p) => p.includes('watch=1')));
    feed.stop();
  });

  test('50,000 rows in 11 pages: 500 first, then 5,000 at a time', async () => {
    const { http, feed } = setup();
    const total = 50_000;
    http.onGet(LIST, (request) => {
      if (request.path.includes('watch=1')) {
        return { status: 200, stream: new StreamBody() };
      }
      const token = /continue=(\d+)/.exec(request.path)?.[1];
      const limit = Number(/limit=(\d+)/.exec(request.path)?.[1] ?? '0');
      const start = token === undefined ? 0 : Number(token);
      const objects = Array.from({ length: Math.min(limit, total - start) }, (_, i) => ({ name: `cm-${start + i}` }));
      const next = start + limit < total ? String(start + limit) : undefined;
      return json(table(objects, { rv: '99', ...(next ? { continue: next } : {}) }));
    });
    feed.start();
    for (let i = 0; i < 50 && !feed.complete; i += 1) {
      await settle();
    }
    assert.equal(feed.complete, true);
    assert.equal(feed.store.size, total);
    assert.ok(names(feed).includes('cm-49999'));
    const lists = http.paths().filter((p) => p.includes('limit='));
    assert.deepEqual(lists.map((p) => /limit=(\d+)/.exec(p)?.[1]), ['500', ...Array<string>(10).fill('5000')]);
    feed.stop();
  });
});
