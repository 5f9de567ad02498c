import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AccessRules, denialText } from '../src/model/access_rules';

function rulesOf(status: unknown): AccessRules {
  const parsed = AccessRules.parse({ kind: 'SelfSubjectRulesReview', status });
  if (!('rules' in parsed)) {
    throw new Error(parsed.error);
  }
  return parsed.rules;
}

// The rules `view` gives in a namespace, in short: reads of configmaps and pods, no secrets.
const VIEW = {
  resourceRules: [
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'pods'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'] },
  ],
  nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
  incomplete: false,
};

describe('access rules', () => {
  test('verbs, groups and resources must each match', () => {
    const rules = rulesOf(VIEW);
    assert.equal(rules.check('list', '', 'configmaps'), 'allowed');
    assert.equal(rules.check('get', 'apps', 'deployments', 'web'), 'allowed');
    assert.equal(rules.check('list', '', 'secrets'), 'denied');
    assert.equal(rules.check('delete', '', 'configmaps', 'a'), 'denied');
    assert.equal(rules.check('list', 'apps', 'configmaps'), 'denied');
    assert.equal(rules.check('list', '', 'deployments'), 'denied');
  });

  test('"*" matches any verb, group or resource (the admin\'s rules allow everything)', () => {
    const admin = rulesOf({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], incomplete: false });
    assert.equal(admin.check('delete', 'apps', 'deployments', 'web'), 'allowed');
    assert.equal(admin.check('create', 'example.com', 'widgets'), 'allowed');
    const anyVerb = rulesOf({ resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }] });
    assert.equal(anyVerb.check('patch', '', 'secrets', 's'), 'allowed');
    assert.equal(anyVerb.check('patch', '', 'configmaps', 's'), 'denied');
    assert.equal(AccessRules.allowAll().check('list', 'x', 'y'), 'allowed');
  });

  test('resourceNames allow only the objects named, never the collection', () => {
    const rules = rulesOf({ resourceRules: [{ verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['mine'] }] });
    assert.equal(rules.check('update', '', 'configmaps', 'mine'), 'allowed');
    assert.equal(rules.check('update', '', 'configmaps', 'theirs'), 'denied');
    assert.equal(rules.check('list', '', 'configmaps'), 'denied');
    const empty = rulesOf({ resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: [] }] });
    assert.equal(empty.check('list', '', 'pods'), 'allowed');
  });

  test('an incomplete review answers unknown where no rule allows', () => {
    const rules = rulesOf({ ...VIEW, incomplete: true, evaluationError: 'webhook: no rules' });
    assert.equal(rules.incomplete, true);
    assert.equal(rules.evaluationError, 'webhook: no rules');
    assert.equal(rules.check('list', '', 'configmaps'), 'allowed');
    assert.equal(rules.check('list', '', 'secrets'), 'unknown');
  });

  test('no rules at all deny; malformed answers are errors, not rules', () => {
    assert.equal(rulesOf({}).check('list', '', 'pods'), 'denied');
    assert.equal(rulesOf({ resourceRules: null }).check('list', '', 'pods'), 'denied');
    for (const review of [undefined, null, 'text', [], {}, { status: 'x' }]) {
      assert.ok('error' in AccessRules.parse(review), JSON.stringify(review));
    }
    for (const resourceRules of [{}, 'all', [null], ['x'], [{ verbs: 'list' }], [{ verbs: ['list', 1] }], [{ resources: [{}] }], [{ resourceNames: 'a' }]]) {
      const parsed = AccessRules.parse({ status: { resourceRules } });
      assert.ok('error' in parsed, JSON.stringify(resourceRules));
    }
    const parsed = AccessRules.parse({ status: { resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }, { verbs: 7 }] } });
    assert.deepEqual(parsed, { error: 'SelfSubjectRulesReview: status.resourceRules[1] is malformed' });
  });

  test('a mistyped incomplete or evaluationError reads as absent', () => {
    const rules = rulesOf({ resourceRules: [], incomplete: 'yes', evaluationError: 3 });
    assert.equal(rules.incomplete, false);
    assert.equal(rules.evaluationError, '');
  });

  test('the refusal in the server\'s words, in a namespace or at the cluster scope', () => {
    const user = 'system:serviceaccount:default:reader';
    assert.equal(
      denialText(user, 'list', { group: '', resource: 'secrets', namespaced: true }, 'default'),
      `User "${user}" cannot list resource "secrets" in API group "" in the namespace "default"`,
    );
    assert.equal(
      denialText(user, 'create', { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespaced: false }, 'default'),
      `User "${user}" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`,
    );
    assert.equal(denialText('', 'get', { group: '', resource: 'pods', namespaced: true }, ''), 'User "?" cannot get resource "pods" in API group "" at the cluster scope');
  });
});
