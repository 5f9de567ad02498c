import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConsoleState } from '../src/model/console_state';
import { findResource } from '../src/model/resource_tree';
import { parseRoute } from '../src/model/route';
import { coreDiscovery, FakeClock, FakeHttp, json, settle, StreamBody } from './fakes';
import { table, watchLine } from './tables';

// The fake server; each watch it answers is added to watches, when given.
function server(watches?: { path: string; stream: StreamBody }[]): FakeHttp {
  const http = new FakeHttp();
  coreDiscovery(http, [
    { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch'] },
    { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['list', 'watch'] },
  ]);
  http.on((request) => {
    if (!request.path.includes('watch=1')) {
      return undefined;
    }
    const stream = new StreamBody();
    watches?.push({ path: request.path, stream });
    return { status: 200, stream };
  });
  http.onGet('/api/v1/namespaces?limit=500', json(table([{ name: 'default', namespace: '' }, { name: 'demo', namespace: '' }])));
  http.onGet('/api/v1/namespaces/demo/configmaps?limit=500', json(table([{ name: 'a', namespace: 'demo' }, { name: 'b', namespace: 'demo' }])));
  http.onGet('/api/v1/configmaps?limit=500', json(table([{ name: 'a', namespace: 'demo' }, { name: 'b', namespace: 'demo' }, { name: 'c', namespace: 'default' }])));
  http.onGet('/api/v1/namespaces/demo/configmaps/b', json({ kind: 'ConfigMap', metadata: { name: 'b', namespace: 'demo', uid: 'uid-demo-b', resourceVersion: '1' } }));
  return http;
}

describe('console state', () => {
  test('a cold URL restores resource, namespace, object and cursor once discovery answers', async () => {
    const http = server();
    const state = new ConsoleState(http.http, new FakeClock());
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b'));
    const before = { feed: state.feed, problem: state.problem };
    assert.deepEqual(before, { feed: undefined, problem: undefined });
    state.start();
    await settle();
    assert.equal(state.resource?.kind, 'ConfigMap');
    assert.equal(state.feed?.store.size, 2);
    assert.equal(state.detail.state.target?.name, 'b');
    assert.equal(state.detail.state.uid, 'uid-demo-b');
    assert.equal(state.cursor, 'uid-demo-b');
    assert.deepEqual(state.namespaceNames(), ['default', 'demo']);
    const configmaps = findResource(state.discovery.tree, '', 'configmaps');
    const namespaces = findResource(state.discovery.tree, '', 'namespaces');
    assert.ok(configmaps && namespaces);
    assert.equal(state.countOf(configmaps), 2);
    assert.equal(state.countOf(namespaces), 2);
    state.stop();
  });

  test('the cursor follows the object the route opens; after a create the editor stays on it', async () => {
    const http = server();
    http.onGet('/api/v1/namespaces/demo/configmaps/a', json({ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'demo', uid: 'uid-demo-a', resourceVersion: '1' } }));
    http.on((request) =>
      request.method === 'POST'
        ? json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made', namespace: 'demo', uid: 'uid-demo-made', resourceVersion: '2' } }, 201)
        : undefined,
    );
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b'));
    await settle();
    assert.equal(state.cursor, 'uid-demo-b');
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=a'));
    await settle();
    assert.equal(state.cursor, 'uid-demo-a');

    state.editor.create({ ref: { group: '', version: 'v1', resource: 'configmaps' }, kind: 'ConfigMap', namespaced: true }, 'demo');
    await state.editor.createFrom(state.editor.state.initialText);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=made'));
    await settle();
    assert.equal(state.editor.state.mode, 'edit');
    assert.equal(state.editor.state.subject, 'demo/made');
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b'));
    assert.equal(state.editor.state.mode, 'closed');
    await settle();
    assert.equal(state.cursor, 'uid-demo-b');
    state.stop();
  });

  test('all namespaces adds the Namespace column; filter and sort come from the route', async () => {
    const http = server();
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?q=B&sort=-Name'));
    await settle();
    const store = state.feed?.store;
    assert.ok(store);
    assert.equal(store.columns[0]?.id, 'Namespace');
    assert.equal(store.filter, 'B');
    assert.deepEqual(store.sort, { column: 'Name', descending: true });
    assert.equal(store.length, 1);
    state.stop();
  });

  test('a resource discovery does not list is a problem, not a request', async () => {
    const http = server();
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    state.applyRoute(parseRoute('#/r/example.com/v1/widgets'));
    await settle();
    assert.equal(state.feed, undefined);
    assert.match(state.problem ?? '', /example.com\/widgets/);
    assert.ok(!http.paths().some((p) => p.includes('widgets')));
    state.stop();
  });

  test('switching views aborts the watch of the view before', async () => {
    const http = server();
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    for (const ns of ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) {
      http.onGet(`/api/v1/namespaces/${ns}/configmaps?limit=500`, json(table([])));
      state.applyRoute(parseRoute(`#/r/core/v1/configmaps?ns=${ns}`));
      await settle();
    }
    const watches = http.requests.filter((r) => r.path.includes('/configmaps?watch=1'));
    assert.equal(watches.length, 6);
    assert.equal(watches.filter((r) => r.cancel?.cancelled).length, 5);
    assert.equal(watches[5]?.cancel?.cancelled, false);
    state.stop();
    assert.ok(http.requests.filter((r) => r.path.includes('watch=1')).every((r) => r.cancel?.cancelled));
  });

  test('watch events go to the log with their objects; the route opens one while it is there', async () => {
    const http = new FakeHttp();
    const streams: StreamBody[] = [];
    http.on((request) => {
      if (!request.path.startsWith('/api/v1/namespaces/demo/configmaps?watch=1')) {
        return undefined;
      }
      assert.ok(request.path.endsWith('&includeObject=Object'));
      const stream = new StreamBody();
      streams.push(stream);
      return { status: 200, stream };
    });
    http.on((request) => (request.path.includes('watch=1') ? { status: 200, stream: new StreamBody() } : undefined));
    coreDiscovery(http, [{ name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch'] }]);
    http.onGet('/api/v1/namespaces?limit=500', json(table([])));
    http.onGet('/api/v1/namespaces/demo/configmaps?limit=500', json(table([{ name: 'a', namespace: 'demo' }])));
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo'));
    await settle();
    const stream = streams[0];
    assert.ok(stream);
    stream.write(watchLine('ADDED', { name: 'b', namespace: 'demo', rv: '11' }) + watchLine('MODIFIED', { name: 'b', namespace: 'demo', rv: '12' }));
    await settle();
    const [modified, added] = state.history.view();
    assert.equal(modified?.type, 'MODIFIED');
    assert.equal(modified?.kind, 'ConfigMap');
    assert.equal(modified?.previous, added?.object);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b&ev=12'));
    const open = state.openEvent;
    assert.ok(open && 'found' in open);
    assert.equal(open.found, modified);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b&ev=99'));
    assert.deepEqual(state.openEvent, { missing: '99' });
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo&obj=b'));
    assert.equal(state.openEvent, undefined);
    state.stop();
  });

  test('namespaces shown in the table are logged once, by the namespaces feed', async () => {
    const watches: { path: string; stream: StreamBody }[] = [];
    const http = server(watches);
    const state = new ConsoleState(http.http, new FakeClock());
    state.start();
    state.applyRoute(parseRoute('#/r/core/v1/namespaces'));
    await settle();
    const namespaceWatches = watches.filter((w) => w.path.startsWith('/api/v1/namespaces?watch=1'));
    assert.equal(namespaceWatches.length, 2);
    for (const { stream } of namespaceWatches) {
      stream.write(watchLine('ADDED', { name: 'new', namespace: '', rv: '30' }));
    }
    await settle();
    assert.deepEqual(
      state.history.view().map((e) => [e.kind, e.name]),
      [['Namespace', 'new']],
    );
    state.stop();
  });
});
