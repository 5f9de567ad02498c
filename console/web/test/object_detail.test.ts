import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiClient } from '../src/model/api_client';
import { ObjectDetail } from '../src/model/object_detail';
import { objectYaml } from '../src/model/yaml_view';
import { FakeHttp, json, settle } from './fakes';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const PATH = '/api/v1/namespaces/demo/configmaps/a';

function configMap(rv: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'demo', uid: 'u1', resourceVersion: rv, managedFields: [{ manager: 'kubectl' }] },
    data: { key: 'value', list: 'x' },
  };
}

describe('yaml', () => {
  test('as kubectl lays it out, managedFields hidden unless asked', () => {
    const object = { kind: 'Pod', metadata: { name: 'p', managedFields: [{ manager: 'm' }] }, spec: { containers: [{ name: 'c', args: ['a', 'b'] }] } };
    assert.equal(
      objectYaml(object, { showManagedFields: false }),
      'kind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    args:\n    - a\n    - b\n',
    );
    assert.match(objectYaml(object, { showManagedFields: true }), /managedFields:\n  - manager: m\n/);
  });

  test('long strings are not folded', () => {
    const long = 'word '.repeat(40).trim();
    assert.equal(objectYaml({ a: long }, { showManagedFields: false }), `a: ${long}\n`);
  });
});

describe('object detail', () => {
  test('fetches the object, follows the watch, and marks it deleted', async () => {
    const http = new FakeHttp();
    let rv = '5';
    http.onGet(PATH, () => json(configMap(rv)));
    const detail = new ObjectDetail(new ApiClient(http.http));
    detail.open({ ref: CM, kind: 'ConfigMap', namespace: 'demo', name: 'a' });
    assert.equal(detail.state.loading, true);
    await settle();
    assert.equal(detail.state.loading, false);
    assert.equal(detail.state.uid, 'u1');
    assert.match(detail.yaml(), /^apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n/);
    assert.doesNotMatch(detail.yaml(), /managedFields/);
    detail.observe('5');
    await settle();
    assert.equal(http.requests.length, 1);
    rv = '6';
    detail.observe('6');
    await settle();
    assert.equal(http.requests.length, 2);
    assert.equal(detail.state.resourceVersion, '6');
    detail.observe(undefined);
    assert.equal(detail.state.deleted, true);
    assert.match(detail.yaml(), /name: a/);
  });

  test('a failed fetch shows the Status message', async () => {
    const http = new FakeHttp();
    http.onGet(PATH, json({ kind: 'Status', message: 'configmaps "a" not found', reason: 'NotFound', code: 404 }, 404));
    const detail = new ObjectDetail(new ApiClient(http.http));
    detail.open({ ref: CM, kind: 'ConfigMap', namespace: 'demo', name: 'a' });
    await settle();
    assert.equal(detail.state.error?.describe(), 'configmaps "a" not found (NotFound, 404)');
    assert.equal(detail.yaml(), '');
  });

  test('opening another object cancels the fetch in flight', async () => {
    const http = new FakeHttp();
    http.onGet(PATH, json(configMap('5')));
    http.onGet('/api/v1/namespaces/demo/configmaps/b', json({ ...(configMap('7') as object), metadata: { name: 'b', uid: 'u2', resourceVersion: '7' } }));
    const detail = new ObjectDetail(new ApiClient(http.http));
    detail.open({ ref: CM, kind: 'ConfigMap', namespace: 'demo', name: 'a' });
    detail.open({ ref: CM, kind: 'ConfigMap', namespace: 'demo', name: 'b' });
    assert.equal(http.requests[0]?.cancel?.cancelled, true);
    await settle();
    assert.equal(detail.state.uid, 'u2');
    detail.close();
    assert.equal(detail.state.target, undefined);
  });
});
