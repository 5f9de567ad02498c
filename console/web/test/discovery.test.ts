import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiClient } from '../src/model/api_client';
import { CancelToken } from '../src/model/cancel';
import { discover, DiscoveryPoller } from '../src/model/discovery';
import { buildTree, EMPTY_TREE, findResource, parseGroupList, parseResourceList } from '../src/model/resource_tree';
import { FakeClock, FakeHttp, json, settle } from './fakes';

const CORE_V1 = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'], shortNames: ['po'] },
    { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    { name: 'bindings', namespaced: true, kind: 'Binding', verbs: ['create'] },
    { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['list', 'watch'] },
    { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['list'] },
    { name: 42 },
  ],
};

const APPS_V1 = {
  kind: 'APIResourceList',
  groupVersion: 'apps/v1',
  resources: [
    { name: 'deployments', namespaced: true, kind: 'Deployment', verbs: ['list'] },
    { name: 'deployments/scale', namespaced: true, kind: 'Scale', verbs: ['get'] },
  ],
};

function groupsDoc(groups: string[]): unknown {
  return {
    kind: 'APIGroupList',
    groups: groups.map((name) => ({
      name,
      versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
      preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
    })),
  };
}

function fakeServer(groups: string[]): FakeHttp {
  const http = new FakeHttp();
  http.onGet('/api', json({ kind: 'APIVersions', versions: ['v1'] }));
  http.onGet('/api/v1', json(CORE_V1));
  http.onGet('/apis', () => json(groupsDoc(groups)));
  http.onGet('/apis/apps/v1', json(APPS_V1));
  return http;
}

describe('discovery', () => {
  test('resource lists keep listable top-level resources', () => {
    const list = parseResourceList(CORE_V1, { group: '', version: 'v1' });
    assert.deepEqual(
      list.map((r) => r.resource),
      ['pods', 'configmaps', 'namespaces'],
    );
    assert.deepEqual(list[0], {
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      verbs: ['get', 'list', 'watch'],
      shortNames: ['po'],
    });
  });

  test('group lists read the preferred version, else the first', () => {
    assert.deepEqual(
      parseGroupList({
        groups: [
          { name: 'a', versions: [{ version: 'v2' }, { version: 'v1' }], preferredVersion: { version: 'v1' } },
          { name: 'b', versions: [{ version: 'v1beta1' }] },
          { name: '', versions: [{ version: 'v1' }] },
          { versions: [] },
        ],
      }),
      [
        { group: 'a', version: 'v1' },
        { group: 'b', version: 'v1beta1' },
      ],
    );
    assert.throws(() => parseGroupList({ kind: 'Status' }), /no groups/);
  });

  test('the tree: core first, groups by name, resources by kind', async () => {
    const http = fakeServer(['zeta.example.com', 'apps']);
    http.onGet('/apis/zeta.example.com/v1', json({ resources: [{ name: 'widgets', kind: 'Widget', namespaced: true, verbs: ['list'] }] }));
    const tree = await discover(new ApiClient(http.http), EMPTY_TREE, new CancelToken());
    assert.deepEqual(
      tree.groups.map((g) => [g.displayName, g.version, g.resources.map((r) => r.kind)]),
      [
        ['core', 'v1', ['ConfigMap', 'Namespace', 'Pod']],
        ['apps', 'v1', ['Deployment']],
        ['zeta.example.com', 'v1', ['Widget']],
      ],
    );
    assert.equal(findResource(tree, 'apps', 'deployments')?.kind, 'Deployment');
    assert.equal(findResource(tree, '', 'deployments'), undefined);
  });

  test('a group that fails keeps its last resources and says why', async () => {
    const http = fakeServer(['apps', 'metrics.k8s.io']);
    http.onGet('/apis/metrics.k8s.io/v1', json({ kind: 'Status', message: 'service unavailable', reason: 'ServiceUnavailable', code: 503 }, 503));
    const previous = buildTree([
      { gv: { group: 'metrics.k8s.io', version: 'v1' }, resources: [{ group: 'metrics.k8s.io', version: 'v1', resource: 'pods', kind: 'PodMetrics', namespaced: true, verbs: ['list'], shortNames: [] }] },
    ]);
    const tree = await discover(new ApiClient(http.http), previous, new CancelToken());
    const metrics = tree.groups.find((g) => g.name === 'metrics.k8s.io');
    assert.equal(metrics?.error, 'service unavailable (ServiceUnavailable, 503)');
    assert.deepEqual(metrics?.resources.map((r) => r.kind), ['PodMetrics']);
  });

  test('the poller tells of new and removed groups, and only of changes', async () => {
    const groups = ['apps'];
    const http = fakeServer(groups);
    http.onGet('/apis/stable.example.com/v1', json({ resources: [{ name: 'crontabs', kind: 'CronTab', namespaced: true, verbs: ['list'] }] }));
    const clock = new FakeClock();
    const poller = new DiscoveryPoller(new ApiClient(http.http), clock, 5000);
    let changes = 0;
    poller.changed.subscribe(() => {
      changes += 1;
    });
    poller.start();
    await settle();
    assert.equal(poller.loaded, true);
    assert.equal(changes, 1);
    await clock.advance(5000);
    assert.equal(changes, 1);
    groups.push('stable.example.com');
    await clock.advance(5000);
    assert.equal(changes, 2);
    assert.ok(findResource(poller.tree, 'stable.example.com', 'crontabs'));
    groups.pop();
    await clock.advance(5000);
    assert.equal(changes, 3);
    assert.equal(findResource(poller.tree, 'stable.example.com', 'crontabs'), undefined);
    poller.stop();
  });

  test('a failed round keeps the tree and reports the error', async () => {
    const http = new FakeHttp();
    let down = false;
    http.onGet('/api', () => (down ? 'network-error' : json({ versions: ['v1'] })));
    http.onGet('/api/v1', json(CORE_V1));
    http.onGet('/apis', json(groupsDoc([])));
    const clock = new FakeClock();
    const poller = new DiscoveryPoller(new ApiClient(http.http), clock, 5000);
    poller.start();
    await settle();
    down = true;
    await clock.advance(5000);
    assert.match(poller.error?.message ?? '', /connection refused/);
    assert.equal(poller.tree.groups[0]?.resources.length, 3);
    down = false;
    await clock.advance(5000);
    assert.equal(poller.error, undefined);
    poller.stop();
  });
});
