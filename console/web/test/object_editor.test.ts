import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiClient } from '../src/model/api_client';
import { applyConflicts } from '../src/model/apply_conflicts';
import { errorFromResponse } from '../src/model/errors';
import type { Http, HttpRequest } from '../src/model/http';
import { kubectlApply, kubectlGet, shellWord } from '../src/model/kubectl_command';
import { describeProblem, duplicateObject, editableObject, manifestYaml, parseManifest } from '../src/model/manifest';
import { deleteQuestion, ObjectEditor, terminatingNote } from '../src/model/object_editor';
import { objectTemplate } from '../src/model/object_template';
import { applyRequest, createRequest, deleteRequest, replaceRequest } from '../src/model/write_requests';

const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

const CONFLICT = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas',
  reason: 'Conflict',
  code: 409,
  details: {
    causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using apps/v1', field: '.spec.replicas' }],
  },
};

// An Http answering each request in turn, recording them.
function scripted(answers: { status: number; body: unknown }[]): { http: Http; sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  const http: Http = async (request) => {
    sent.push(request);
    const answer = answers.shift() ?? { status: 500, body: 'no answer' };
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return {
      status: answer.status,
      text: async () => text,
      chunks: async function* () {
        yield text;
      },
    };
  };
  return { http, sent };
}

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    labels: { app: 'web' },
  },
  spec: { replicas: 1 },
  status: { replicas: 1 },
};

describe('manifest', () => {
  test('the editable object leaves out status and the metadata the server sets', () => {
    assert.deepEqual(editableObject(DEPLOYMENT), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { replicas: 1 },
    });
  });

  test('a duplicate has the new name, and a Service loses its cluster IPs', () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', uid: 'u', ownerReferences: [] }, spec: { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ports: [] } };
    assert.deepEqual(duplicateObject(service, 's-copy'), { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-copy' }, spec: { ports: [] } });
  });

  test('a duplicate leaves out kubectl apply\'s record of the original, keeps other annotations', () => {
    const applied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"metadata":{"name":"a"}}' };
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', annotations: applied }, data: { k: 'v' } };
    assert.deepEqual(duplicateObject(object, 'a-copy'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a-copy' }, data: { k: 'v' } });
    const noted = { ...object, metadata: { name: 'a', annotations: { ...applied, note: 'kept' } } };
    assert.deepEqual(duplicateObject(noted, 'a-copy').metadata, { name: 'a-copy', annotations: { note: 'kept' } });
  });

  test('YAML errors come with their line and column', () => {
    const result = parseManifest('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a: b\ndata: {}\n');
    assert.ok('problems' in result);
    const problem = result.problems[0];
    assert.ok(problem);
    assert.equal(describeProblem(problem), 'line 4, column 9: Nested mappings are not allowed in compact mappings');
  });

  test('duplicate keys are refused', () => {
    const result = parseManifest('apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata:\n  name: a\n');
    assert.ok('problems' in result);
    assert.equal(result.problems[0]?.line, 3);
  });

  test('apiVersion, kind and metadata.name are required', () => {
    const result = parseManifest('metadata:\n  namespace: x\ndata: {}\n');
    assert.ok('problems' in result);
    assert.deepEqual(
      result.problems.map((p) => p.message),
      ['apiVersion is missing (a string such as "v1" or "apps/v1").', 'kind is missing (a string such as "ConfigMap").', 'metadata.name is missing.'],
    );
    assert.equal(result.problems[2]?.line, 1);
    assert.ok('problems' in parseManifest('- a\n- b\n'));
    assert.ok('manifest' in parseManifest('apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: p-\n', { allowGenerateName: true }));
  });

  test('YAML to JSON', () => {
    const result = parseManifest(manifestYaml(editableObject(DEPLOYMENT)));
    assert.ok('manifest' in result);
    assert.equal(result.manifest.name, 'web');
    assert.equal(result.manifest.namespace, 'default');
    assert.deepEqual(result.manifest.object, editableObject(DEPLOYMENT));
  });
});

describe('requests', () => {
  test('server-side apply: PATCH apply-patch+yaml with the field manager, force on demand', () => {
    const request = applyRequest(DEPLOYMENTS, 'default', 'web', 'kind: Deployment\n', false);
    assert.equal(request.method, 'PATCH');
    assert.equal(request.path, '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kube-sandbox-web');
    assert.equal(request.contentType, 'application/apply-patch+yaml');
    assert.equal(request.body, 'kind: Deployment\n');
    assert.equal(applyRequest(DEPLOYMENTS, 'default', 'web', '', true).path, '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kube-sandbox-web&force=true');
  });

  test('create, replace with the resourceVersion read, delete', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
    const create = createRequest(CONFIGMAPS, 'ns', object);
    assert.equal(create.method, 'POST');
    assert.equal(create.path, '/api/v1/namespaces/ns/configmaps?fieldManager=kube-sandbox-web');
    const replace = replaceRequest(CONFIGMAPS, 'ns', 'a', object, '42');
    assert.equal(replace.method, 'PUT');
    assert.deepEqual(JSON.parse(replace.body ?? ''), { ...object, metadata: { name: 'a', resourceVersion: '42' } });
    assert.deepEqual(deleteRequest(CONFIGMAPS, 'ns', 'a'), { method: 'DELETE', path: '/api/v1/namespaces/ns/configmaps/a', accept: 'application/json' });
  });

  test('the conflicts of a 409 apply: field and manager of each cause', () => {
    assert.deepEqual(applyConflicts(errorFromResponse(409, JSON.stringify(CONFLICT))), [
      { field: '.spec.replicas', manager: 'kubectl', message: 'conflict with "kubectl" using apps/v1' },
    ]);
    assert.deepEqual(applyConflicts(errorFromResponse(422, JSON.stringify({ ...CONFLICT, code: 422 }))), []);
  });

  test('kubectl commands', () => {
    assert.equal(kubectlGet(DEPLOYMENTS, 'default', 'web'), 'kubectl get deployments.apps web -n default -o yaml');
    assert.equal(kubectlGet({ group: '', version: 'v1', resource: 'namespaces' }, '', 'x'), 'kubectl get namespaces x -o yaml');
    assert.equal(shellWord("it's"), `'it'\\''s'`);
    assert.equal(kubectlApply('a: 1\n'), "kubectl apply --server-side --field-manager=kube-sandbox-web -f - <<'EOF'\na: 1\nEOF\n");
    assert.match(kubectlApply('EOF\n'), /<<'EOF1'\nEOF\nEOF1\n$/);
  });

  test('templates', () => {
    assert.deepEqual(objectTemplate({ group: '', version: 'v1', kind: 'ConfigMap', namespaced: true }, 'demo'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'new-configmap', namespace: 'demo' },
      data: { key: 'value' },
    });
    const deployment = objectTemplate({ group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true }, '');
    assert.equal(deployment['apiVersion'], 'apps/v1');
    assert.deepEqual(deployment['metadata'], { name: 'new-deployment', namespace: 'default' });
    assert.deepEqual(objectTemplate({ group: 'x.io', version: 'v1', kind: 'Widget', namespaced: false }, 'ns'), {
      apiVersion: 'x.io/v1',
      kind: 'Widget',
      metadata: { name: 'new-widget' },
      spec: {},
    });
  });

  test('the delete confirmation names the finalizers', () => {
    assert.equal(deleteQuestion('ConfigMap', 'ns', 'a', { metadata: {} }), 'Delete ConfigMap ns/a? It has no finalizers: it goes at once.');
    assert.equal(
      deleteQuestion('Namespace', '', 'n', { metadata: { finalizers: ['example.com/hold'] }, spec: { finalizers: ['kubernetes'] } }),
      'Delete Namespace n? It stays, Terminating, until these finalizers are removed: metadata.finalizers: example.com/hold; spec.finalizers: kubernetes.',
    );
  });
});

describe('object editor', () => {
  const target = { ref: DEPLOYMENTS, kind: 'Deployment', namespaced: true };

  test('apply, a conflict, then force', async () => {
    const { http, sent } = scripted([
      { status: 409, body: CONFLICT },
      { status: 200, body: { ...DEPLOYMENT, metadata: { ...DEPLOYMENT.metadata, resourceVersion: '9' } } },
    ]);
    const editor = new ObjectEditor(new ApiClient(http));
    editor.edit(target, DEPLOYMENT);
    assert.equal(editor.state.mode, 'edit');
    assert.equal(editor.state.resourceVersion, '7');
    assert.doesNotMatch(editor.state.initialText, /managedFields|status|resourceVersion|uid/);
    await editor.apply(editor.state.initialText, false);
    const failed = editor.state.outcome;
    assert.equal(failed?.kind, 'failed');
    assert.ok(failed?.kind === 'failed');
    assert.match(failed.message, /^Apply failed with 1 conflict.*\(Conflict, 409\)$/);
    assert.deepEqual(failed.conflicts.map((c) => [c.field, c.manager]), [['.spec.replicas', 'kubectl']]);
    await editor.apply(editor.state.initialText, true);
    assert.deepEqual(editor.state.outcome, { kind: 'done', message: 'Applied (forced) as kube-sandbox-web: resourceVersion 9.' });
    assert.equal(editor.state.resourceVersion, '9');
    assert.deepEqual(sent.map((r) => r.path), [
      '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kube-sandbox-web',
      '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kube-sandbox-web&force=true',
    ]);
  });

  test('YAML problems are shown before anything is sent', async () => {
    const { http, sent } = scripted([]);
    const editor = new ObjectEditor(new ApiClient(http));
    editor.edit(target, DEPLOYMENT);
    await editor.apply('kind: [\n', false);
    assert.equal(editor.state.outcome?.kind, 'invalid');
    await editor.apply('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n', false);
    assert.ok(editor.state.outcome?.kind === 'invalid');
    assert.match(editor.state.outcome.problems[0]?.message ?? '', /metadata\.namespace is missing/);
    assert.equal(sent.length, 0);
  });

  test('replace sends the version read; a stale one is refused in the server words', async () => {
    const stale = { kind: 'Status', status: 'Failure', code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again' };
    const { http, sent } = scripted([{ status: 409, body: stale }]);
    const editor = new ObjectEditor(new ApiClient(http));
    editor.edit(target, DEPLOYMENT);
    await editor.replace(editor.state.initialText);
    assert.equal(JSON.parse(sent[0]?.body ?? '{}').metadata.resourceVersion, '7');
    assert.ok(editor.state.outcome?.kind === 'failed');
    assert.match(editor.state.outcome.message, /the object has been modified.*\(Conflict, 409\)$/);
    assert.deepEqual(editor.state.outcome.conflicts, []);
  });

  test('create from a template, then the editor goes on with the object', async () => {
    const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new-configmap', namespace: 'demo', resourceVersion: '3' } };
    const { http, sent } = scripted([{ status: 201, body: created }]);
    const editor = new ObjectEditor(new ApiClient(http));
    editor.create({ ref: CONFIGMAPS, kind: 'ConfigMap', namespaced: true }, 'demo');
    assert.equal(editor.state.mode, 'new');
    await editor.createFrom(editor.state.initialText);
    assert.equal(sent[0]?.method, 'POST');
    assert.equal(sent[0]?.path, '/api/v1/namespaces/demo/configmaps?fieldManager=kube-sandbox-web');
    assert.deepEqual(editor.state.outcome, { kind: 'done', message: 'Created ConfigMap new-configmap: resourceVersion 3.' });
    assert.equal(editor.state.mode, 'edit');
    assert.equal(editor.state.subject, 'demo/new-configmap');
  });

  test('a create tells where the object is, an apply does not; the editor is then on it', async () => {
    const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made', namespace: 'demo', resourceVersion: '3' } };
    const { http } = scripted([{ status: 201, body: created }, { status: 200, body: created }]);
    const editor = new ObjectEditor(new ApiClient(http));
    const told: unknown[] = [];
    editor.created.subscribe((where) => told.push(where));
    editor.create({ ref: CONFIGMAPS, kind: 'ConfigMap', namespaced: true }, 'demo');
    assert.equal(editor.isEditing(CONFIGMAPS, 'demo', 'made'), false);
    await editor.createFrom(editor.state.initialText.replace('name: new-configmap', 'name: made'));
    assert.deepEqual(told, [{ ref: CONFIGMAPS, namespace: 'demo', name: 'made' }]);
    assert.equal(editor.isEditing(CONFIGMAPS, 'demo', 'made'), true);
    assert.equal(editor.isEditing(CONFIGMAPS, 'other', 'made'), false);
    assert.equal(editor.isEditing(DEPLOYMENTS, 'demo', 'made'), false);
    await editor.apply(editor.state.initialText.replace('name: new-configmap', 'name: made'), false);
    assert.equal(told.length, 1);
  });

  test('an object being deleted is noted as Terminating, with what holds it', () => {
    const since = '2026-01-01T00:00:00Z';
    assert.equal(terminatingNote('ConfigMap', { metadata: { name: 'a' } }), undefined);
    assert.equal(terminatingNote('ConfigMap', { metadata: { name: 'a', deletionTimestamp: since } }), `Terminating since ${since}.`);
    assert.equal(
      terminatingNote('ConfigMap', { metadata: { name: 'a', deletionTimestamp: since, finalizers: ['example.com/hold', 'example.com/two'] } }),
      `Terminating since ${since}, held by metadata.finalizers: example.com/hold, example.com/two.`,
    );
    assert.equal(
      terminatingNote('Namespace', { metadata: { name: 'n', deletionTimestamp: since }, spec: { finalizers: ['kubernetes'] } }),
      `Terminating since ${since}, held by spec.finalizers: kubernetes.`,
    );
  });

  test('delete: confirmation, then Terminating when finalizers hold the object', async () => {
    const held = { metadata: { name: 'a', finalizers: ['example.com/hold'], deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const { http, sent } = scripted([{ status: 200, body: held }]);
    const editor = new ObjectEditor(new ApiClient(http));
    editor.askDelete('ConfigMap', 'ns', 'a', held);
    assert.match(editor.state.confirmDelete ?? '', /example\.com\/hold/);
    await editor.confirmDelete(CONFIGMAPS, 'ns', 'a');
    assert.equal(editor.state.confirmDelete, undefined);
    assert.equal(sent[0]?.method, 'DELETE');
    assert.deepEqual(editor.state.outcome, { kind: 'done', message: 'Deleting: the object is Terminating until its finalizers are removed.' });
  });
});
