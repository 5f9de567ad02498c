import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLUSTER_SCOPE, RULES_REFRESH_MS, RULES_TIMEOUT_MS, SELF_SUBJECT_RULES_REVIEWS } from '../src/model/access_advice';
import { createPermission, duplicatePermission, editPermission, listPermission, objectPermission } from '../src/model/action_access';
import type { HttpRequest } from '../src/model/http';
import { ConsoleState } from '../src/model/console_state';
import { findResource } from '../src/model/resource_tree';
import { parseRoute } from '../src/model/route';
import { coreDiscovery, FakeClock, FakeHttp, json, settle, StreamBody, type Reply } from './fakes';
import { table } from './tables';

const USER = 'system:serviceaccount:default:reader';

const VIEW_RULES = [
  { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'namespaces'] },
];

function review(resourceRules: unknown[], incomplete = false): Reply {
  return json({ kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', status: { resourceRules, incomplete } }, 201);
}

function namespaceOf(request: HttpRequest): string {
  const body = JSON.parse(request.body ?? '{}') as { spec?: { namespace?: string } };
  return body.spec?.namespace ?? '';
}

// A server whose reviews answer with `answer(namespace)`; each review asked is recorded.
function server(answer: (namespace: string) => Reply | 'hang', asked: HttpRequest[]): FakeHttp {
  const http = new FakeHttp();
  http.on((request) => {
    if (request.method !== 'POST' || request.path !== SELF_SUBJECT_RULES_REVIEWS) {
      return undefined;
    }
    asked.push(request);
    const reply = answer(namespaceOf(request));
    // A review that never answers: a body that ends only when cancelled.
    return reply === 'hang' ? { status: 201, stream: new StreamBody() } : reply;
  });
  coreDiscovery(http, [
    { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { name: 'secrets', namespaced: true, kind: 'Secret', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: ['create', 'delete', 'get', 'list', 'watch'] },
  ]);
  http.on((request) => (request.path.includes('watch=1') ? { status: 200, stream: new StreamBody() } : undefined));
  http.onGet('/api/v1/namespaces?limit=500', json(table([{ name: 'default', namespace: '' }, { name: 'demo', namespace: '' }])));
  http.onGet('/api/v1/namespaces/default/configmaps?limit=500', json(table([{ name: 'a', namespace: 'default' }])));
  http.onGet('/api/v1/configmaps?limit=500', json(table([{ name: 'a', namespace: 'default' }])));
  http.onGet('/api/v1/namespaces/default/configmaps/a', json({ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '1' } }));
  return http;
}

function resource(state: ConsoleState, name: string) {
  const info = findResource(state.discovery.tree, '', name);
  assert.ok(info, name);
  return info;
}

// The namespace a table is narrowed to (read afresh: the assertions narrow state.narrowed).
function narrowedTo(state: ConsoleState): string | undefined {
  return state.narrowed?.namespace;
}

describe('access advice', () => {
  test('asked once discovery answered, for the namespace shown and the cluster scope; the tree and the actions follow it', async () => {
    const asked: HttpRequest[] = [];
    const state = new ConsoleState(server(() => review(VIEW_RULES), asked).http, new FakeClock(), USER);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default&obj=a'));
    assert.equal(asked.length, 0);
    state.start();
    await settle();
    assert.deepEqual(asked.map(namespaceOf), ['default', CLUSTER_SCOPE]);
    assert.equal(asked[0]?.contentType, 'application/json');
    assert.equal(listPermission(state, resource(state, 'configmaps')).allowed, true);
    assert.deepEqual(listPermission(state, resource(state, 'secrets')), {
      allowed: false,
      reason: `User "${USER}" cannot list resource "secrets" in API group "" in the namespace "default"`,
    });
    assert.deepEqual(listPermission(state, resource(state, 'namespaces')), { allowed: true });
    assert.deepEqual(createPermission(state), {
      allowed: false,
      reason: `User "${USER}" cannot create resource "configmaps" in API group "" in the namespace "default"`,
    });
    assert.deepEqual(editPermission(state), {
      allowed: false,
      reason: `User "${USER}" cannot patch resource "configmaps" in API group "" in the namespace "default"`,
    });
    assert.equal(objectPermission(state, 'delete').allowed, false);
    assert.equal(duplicatePermission(state).allowed, false);
    state.stop();
  });

  test('with all namespaces shown, a namespaced kind is marked when listed neither in all nor in "default"', async () => {
    const asked: HttpRequest[] = [];
    // Namespaces and Secrets readable cluster-wide (a ClusterRoleBinding), ConfigMaps in "default" alone.
    const cluster = [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces', 'secrets'] }];
    const state = new ConsoleState(server((ns) => review(ns === CLUSTER_SCOPE ? cluster : VIEW_RULES), asked).http, new FakeClock(), USER);
    state.applyRoute(parseRoute('#/r/core/v1/pods'));
    state.start();
    await settle();
    assert.deepEqual(asked.map(namespaceOf), ['default', CLUSTER_SCOPE]);
    assert.deepEqual(listPermission(state, resource(state, 'secrets')), { allowed: true });
    assert.deepEqual(listPermission(state, resource(state, 'configmaps')), { allowed: true });
    assert.equal(state.access.may('list', resource(state, 'configmaps'), '').allowed, false);
    assert.deepEqual(state.access.may('create', resource(state, 'namespaces'), ''), {
      allowed: false,
      reason: `User "${USER}" cannot create resource "namespaces" in API group "" at the cluster scope`,
    });
    state.stop();
    const none = new ConsoleState(server((ns) => review(ns === CLUSTER_SCOPE ? [] : VIEW_RULES), []).http, new FakeClock(), USER);
    none.applyRoute(parseRoute('#/r/core/v1/secrets'));
    none.start();
    await settle();
    assert.deepEqual(listPermission(none, resource(none, 'secrets')), {
      allowed: false,
      reason: `User "${USER}" cannot list resource "secrets" in API group "" in the namespace "default"`,
    });
    none.stop();
  });

  test('cluster-scoped kinds follow the cluster-wide rules: a RoleBinding in the namespace shown grants none of them', async () => {
    // Everything in "default" (the admin ClusterRole bound by a RoleBinding there), nothing cluster-wide.
    const all = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    const state = new ConsoleState(server((ns) => review(ns === CLUSTER_SCOPE ? [] : all), []).http, new FakeClock(), USER);
    state.applyRoute(parseRoute('#/r/core/v1/namespaces?ns=default'));
    state.start();
    await settle();
    assert.deepEqual(listPermission(state, resource(state, 'configmaps')), { allowed: true });
    assert.deepEqual(listPermission(state, resource(state, 'namespaces')), {
      allowed: false,
      reason: `User "${USER}" cannot list resource "namespaces" in API group "" at the cluster scope`,
    });
    assert.equal(createPermission(state).allowed, false);
    state.stop();
  });

  test('asked again every 30 s, and at once for another namespace; the answers of both are kept', async () => {
    const asked: HttpRequest[] = [];
    let rules = VIEW_RULES;
    const clock = new FakeClock();
    const state = new ConsoleState(server(() => review(rules), asked).http, clock, USER);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default'));
    state.start();
    await settle();
    rules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    await clock.advance(RULES_REFRESH_MS - 1);
    assert.equal(asked.length, 2);
    assert.equal(listPermission(state, resource(state, 'secrets')).allowed, false);
    await clock.advance(1);
    assert.equal(asked.length, 4);
    assert.equal(listPermission(state, resource(state, 'secrets')).allowed, true);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo'));
    await settle();
    assert.deepEqual(asked.map(namespaceOf), ['default', CLUSTER_SCOPE, 'default', CLUSTER_SCOPE, 'demo', CLUSTER_SCOPE]);
    assert.ok(state.access.rules('default') && state.access.rules('demo') && state.access.rules(CLUSTER_SCOPE));
    // The same namespace again asks nothing more.
    state.applyRoute(parseRoute('#/r/core/v1/secrets?ns=demo'));
    await settle();
    assert.equal(asked.length, 6);
    state.stop();
    await clock.advance(RULES_REFRESH_MS * 3);
    assert.equal(asked.length, 6);
  });

  test('a change of namespace cancels the review in flight; one that hangs is given up', async () => {
    const asked: HttpRequest[] = [];
    const clock = new FakeClock();
    const state = new ConsoleState(server((ns) => (ns === 'default' ? 'hang' : review(VIEW_RULES)), asked).http, clock, USER);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default'));
    state.start();
    await settle();
    assert.equal(asked[0]?.cancel?.cancelled, false);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=demo'));
    await settle();
    assert.equal(asked[0]?.cancel?.cancelled, true);
    assert.ok(state.access.rules('demo'));
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default'));
    await settle();
    assert.equal(namespaceOf(asked[4] as HttpRequest), 'default');
    assert.equal(asked[4]?.cancel?.cancelled, false);
    await clock.advance(RULES_TIMEOUT_MS);
    assert.equal(asked[4]?.cancel?.cancelled, true);
    // Given up: unknown, so allowed; asked again later.
    assert.equal(listPermission(state, resource(state, 'secrets')).allowed, true);
    await clock.advance(RULES_REFRESH_MS);
    assert.equal(asked.length, 8);
    state.stop();
  });

  test('a refused, failed, malformed or incomplete review leaves everything allowed', async () => {
    const replies: Reply[] = [
      json({ kind: 'Status', status: 'Failure', message: 'forbidden', reason: 'Forbidden', code: 403 }, 403),
      'network-error',
      { status: 201, body: 'not json' },
      json({ kind: 'SelfSubjectRulesReview', status: { resourceRules: [{ verbs: 'all' }] } }, 201),
      review([], true),
    ];
    for (const reply of replies) {
      const asked: HttpRequest[] = [];
      const state = new ConsoleState(server(() => reply, asked).http, new FakeClock(), USER);
      state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default&obj=a'));
      state.start();
      await settle();
      assert.equal(asked.length, 2);
      for (const permission of [listPermission(state, resource(state, 'secrets')), createPermission(state), editPermission(state), objectPermission(state, 'delete')]) {
        assert.deepEqual(permission, { allowed: true }, JSON.stringify(reply));
      }
      state.stop();
    }
  });

  test('rules allowing update but not patch still allow Edit (Replace); resourceNames allow the object named', async () => {
    const rules = [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      { verbs: ['update', 'delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
    ];
    const state = new ConsoleState(server(() => review(rules), []).http, new FakeClock(), USER);
    state.applyRoute(parseRoute('#/r/core/v1/configmaps?ns=default&obj=a'));
    state.start();
    await settle();
    assert.deepEqual(editPermission(state), { allowed: true });
    assert.equal(objectPermission(state, 'patch').allowed, false);
    assert.deepEqual(objectPermission(state, 'delete'), { allowed: true });
    assert.equal(createPermission(state).allowed, false);
    state.stop();
  });

  test('a kind refused in all namespaces is listed in "default" instead, until the namespace changes', async () => {
    const asked: HttpRequest[] = [];
    const http = server(() => review(VIEW_RULES), asked);
    const refused = `secrets is forbidden: User "${USER}" cannot list resource "secrets" in API group "" at the cluster scope`;
    http.onGet('/api/v1/secrets?limit=500', json({ kind: 'Status', status: 'Failure', message: refused, reason: 'Forbidden', code: 403 }, 403));
    http.onGet('/api/v1/namespaces/default/secrets?limit=500', json(table([{ name: 's', namespace: 'default' }])));
    http.onGet('/api/v1/namespaces/demo/secrets?limit=500', json(table([])));
    const state = new ConsoleState(http.http, new FakeClock(), USER);
    state.applyRoute(parseRoute('#/r/core/v1/secrets'));
    state.start();
    await settle();
    assert.deepEqual(state.narrowed, { namespace: 'default', refusal: `${refused} (Forbidden, 403)` });
    assert.equal(state.feed?.target.namespace, 'default');
    assert.equal(state.feed?.store.size, 1);
    // ConfigMaps in all namespaces are not refused: listed in all.
    state.applyRoute(parseRoute('#/r/core/v1/configmaps'));
    await settle();
    assert.equal(state.narrowed, undefined);
    assert.equal(state.feed?.target.namespace, '');
    // Secrets again: still narrowed, without asking all namespaces again.
    const before = http.paths().filter((p) => p === '/api/v1/secrets?limit=500').length;
    state.applyRoute(parseRoute('#/r/core/v1/secrets'));
    await settle();
    assert.equal(state.feed?.target.namespace, 'default');
    assert.equal(http.paths().filter((p) => p === '/api/v1/secrets?limit=500').length, before);
    // Another namespace, then all again: all namespaces are asked again.
    state.applyRoute(parseRoute('#/r/core/v1/secrets?ns=demo'));
    await settle();
    assert.equal(state.narrowed, undefined);
    state.applyRoute(parseRoute('#/r/core/v1/secrets'));
    await settle();
    assert.equal(http.paths().filter((p) => p === '/api/v1/secrets?limit=500').length, before + 1);
    assert.equal(narrowedTo(state), 'default');
    state.stop();
  });
});
