import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatRoute, HOME, objectOf, objectParam, parseRoute, type Route } from '../src/model/route';

describe('route', () => {
  const cases: [string, Route][] = [
    ['#/', HOME],
    ['#/r/core/v1/configmaps', { resource: { group: '', version: 'v1', resource: 'configmaps' }, namespace: '', filter: '' }],
    [
      '#/r/apps/v1/deployments?ns=default',
      { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, namespace: 'default', filter: '' },
    ],
    [
      '#/r/core/v1/configmaps?ns=kube-system&obj=name',
      { resource: { group: '', version: 'v1', resource: 'configmaps' }, namespace: 'kube-system', object: 'name', filter: '' },
    ],
    [
      '#/r/core/v1/pods?obj=demo/web-0&q=a%20b%26c&sort=-Age',
      {
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: '',
        object: 'demo/web-0',
        filter: 'a b&c',
        sort: { column: 'Age', descending: true },
      },
    ],
    [
      '#/r/stable.example.com/v1beta1/crontabs?ns=x&sort=Last%20Schedule',
      {
        resource: { group: 'stable.example.com', version: 'v1beta1', resource: 'crontabs' },
        namespace: 'x',
        filter: '',
        sort: { column: 'Last Schedule', descending: false },
      },
    ],
    ['#/?ns=default&q=web', { namespace: 'default', filter: 'web' }],
    [
      '#/r/apps/v1/deployments?ns=default&obj=web&ev=4242',
      { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, namespace: 'default', object: 'web', event: '4242', filter: '' },
    ],
  ];

  for (const [hash, route] of cases) {
    test(`parses and formats ${hash}`, () => {
      assert.deepEqual(parseRoute(hash), route);
      assert.equal(formatRoute(route), hash);
      assert.deepEqual(parseRoute(formatRoute(route)), route);
    });
  }

  test('an empty or unknown hash is home', () => {
    assert.deepEqual(parseRoute(''), HOME);
    assert.deepEqual(parseRoute('#'), HOME);
    assert.deepEqual(parseRoute('#/nothing/here'), HOME);
    assert.deepEqual(parseRoute('#/r/core/v1'), HOME);
    assert.deepEqual(parseRoute('#/r/core//pods'), HOME);
  });

  test('bad percent-encoding is ignored, not thrown', () => {
    assert.deepEqual(parseRoute('#/r/core/v1/pods?q=%E0%A4%A&ns=a'), {
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'a',
      filter: '',
    });
    assert.deepEqual(parseRoute('#/r/co%ZZre/v1/pods'), HOME);
  });

  test('obj and sort are dropped without a resource, ev without obj', () => {
    assert.deepEqual(parseRoute('#/?obj=x&sort=Name&ev=3'), HOME);
    assert.deepEqual(parseRoute('#/r/core/v1/pods?ev=3'), { resource: { group: '', version: 'v1', resource: 'pods' }, namespace: '', filter: '' });
  });

  test('a filter with every kind of character survives the round trip', () => {
    const route: Route = { resource: { group: '', version: 'v1', resource: 'pods' }, namespace: 'a b', filter: '#?&=/+%\u00e9 ' };
    assert.deepEqual(parseRoute(formatRoute(route)), route);
  });

  test('objectParam writes the namespace only when it differs from the view', () => {
    assert.equal(objectParam('default', 'x', 'default'), 'x');
    assert.equal(objectParam('default', 'x', ''), 'default/x');
    assert.equal(objectParam('', 'node-1', 'default'), 'node-1');
  });

  test('objectOf reads the object back', () => {
    assert.deepEqual(objectOf('x', true, 'default'), { namespace: 'default', name: 'x' });
    assert.deepEqual(objectOf('demo/x', true, 'default'), { namespace: 'demo', name: 'x' });
    assert.equal(objectOf('x', true, ''), undefined);
    assert.deepEqual(objectOf('node-1', false, 'default'), { namespace: '', name: 'node-1' });
    assert.equal(objectOf('a/b', false, ''), undefined);
    assert.equal(objectOf('a/b/c', true, ''), undefined);
    assert.equal(objectOf('a/', true, ''), undefined);
  });
});
