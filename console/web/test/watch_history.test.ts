import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FeedEvent } from '../src/model/table_feed';
import { WatchHistory } from '../src/model/watch_history';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SOURCE = { ref: CONFIGMAPS, kind: 'ConfigMap', namespace: 'default' };

function configMap(name: string, rv: string, data: Record<string, string> = {}, uid = `uid-${name}`): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid, resourceVersion: rv }, data };
}

function change(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: Record<string, unknown>): FeedEvent {
  const metadata = object['metadata'] as { name: string; namespace: string; uid: string; resourceVersion: string };
  return {
    type,
    row: {
      key: metadata.uid,
      name: metadata.name,
      namespace: metadata.namespace,
      resourceVersion: metadata.resourceVersion,
      created: Number.NaN,
      receivedAt: 0,
      cells: [metadata.name],
    },
    object,
    receivedAt: 5,
  };
}

describe('watch history', () => {
  test('each event carries its object and the version before it', () => {
    const history = new WatchHistory();
    const v1 = configMap('a', '1', { k: '1' });
    const v2 = configMap('a', '2', { k: '2' });
    const v3 = configMap('a', '3', { k: '2' });
    history.record([change('ADDED', v1), change('MODIFIED', v2)], SOURCE);
    history.record([change('DELETED', v3)], SOURCE);
    const [deleted, modified, added] = history.view();
    assert.deepEqual([added?.type, added?.object, added?.previous], ['ADDED', v1, null]);
    assert.deepEqual([modified?.type, modified?.object, modified?.previous], ['MODIFIED', v2, v1]);
    assert.deepEqual([deleted?.type, deleted?.object, deleted?.previous], ['DELETED', v3, v2]);
    assert.deepEqual([added?.kind, added?.namespace, added?.name, added?.uid, added?.resourceVersion], ['ConfigMap', 'default', 'a', 'uid-a', '1']);
    assert.equal(history.objectsHeld, 1);
  });

  test('a change to an object not seen before has no version before', () => {
    const history = new WatchHistory();
    history.record([change('MODIFIED', configMap('old', '7'))], SOURCE);
    assert.equal(history.view()[0]?.previous, null);
  });

  test('the detail pane\'s object stands in for a version not seen, unless it is the same version', () => {
    const history = new WatchHistory();
    const shown = configMap('web', '6', { k: 'before' });
    history.record([change('MODIFIED', configMap('web', '7'))], SOURCE, (uid) => (uid === 'uid-web' ? shown : undefined));
    assert.equal(history.view()[0]?.previous, shown);
    const other = new WatchHistory();
    other.record([change('MODIFIED', configMap('web', '6'))], SOURCE, () => shown);
    assert.equal(other.view()[0]?.previous, null);
  });

  test('objects are held only while an event of them is in the log', () => {
    const history = new WatchHistory(2);
    history.record([change('ADDED', configMap('a', '1'))], SOURCE);
    history.record([change('ADDED', configMap('b', '2'))], SOURCE);
    assert.equal(history.objectsHeld, 2);
    history.record([change('ADDED', configMap('c', '3'))], SOURCE);
    assert.equal(history.objectsHeld, 2);
    // a's only event was dropped: its version went with it.
    history.record([change('MODIFIED', configMap('a', '4'))], SOURCE);
    assert.equal(history.view()[0]?.previous, null);
    history.clear();
    assert.equal(history.objectsHeld, 0);
  });

  test('an object with several events in the log stays until the last of them goes', () => {
    const history = new WatchHistory(3);
    const v1 = configMap('a', '1');
    const v2 = configMap('a', '2');
    history.record([change('ADDED', v1), change('MODIFIED', v2), change('ADDED', configMap('b', '3'))], SOURCE);
    history.record([change('ADDED', configMap('c', '4'))], SOURCE);
    assert.equal(history.objectsHeld, 3);
    history.record([change('MODIFIED', configMap('a', '5'))], SOURCE);
    assert.equal(history.view()[0]?.previous, v2);
  });

  test('metadata only (a server ignoring includeObject): no object, and no version before the next', () => {
    const history = new WatchHistory();
    const partial = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '2' } };
    history.record([change('ADDED', configMap('a', '1')), change('MODIFIED', partial), change('MODIFIED', configMap('a', '3'))], SOURCE);
    const [third, second] = history.view();
    assert.equal(second?.object, null);
    assert.notEqual(second?.previous, null);
    assert.equal(third?.previous, null);
  });

  test('bookmarks are logged with the watch\'s namespace and hidden by default', () => {
    const history = new WatchHistory();
    history.record([{ type: 'BOOKMARK', resourceVersion: '99', receivedAt: 1 }], SOURCE);
    assert.equal(history.log.size, 1);
    assert.equal(history.view().length, 0);
    history.setTypeShown('BOOKMARK', true);
    const [bookmark] = history.view();
    assert.deepEqual([bookmark?.type, bookmark?.namespace, bookmark?.name, bookmark?.resourceVersion, bookmark?.object], ['BOOKMARK', 'default', '', '99', null]);
  });

  test('filter setters change the view and signal once per change', () => {
    const history = new WatchHistory();
    let signals = 0;
    history.changed.subscribe(() => {
      signals += 1;
    });
    history.record([change('ADDED', configMap('a', '1')), change('DELETED', configMap('a', '2'))], SOURCE);
    history.setTypeShown('DELETED', false);
    history.setTypeShown('DELETED', false);
    assert.deepEqual(history.view().map((e) => e.type), ['ADDED']);
    history.setKind('Secret');
    assert.equal(history.view().length, 0);
    history.setKind('');
    history.setNamespace('default');
    assert.equal(history.view().length, 1);
    assert.equal(signals, 5);
  });

  test('pause holds the view; find still sees every event', () => {
    const history = new WatchHistory();
    history.record([change('ADDED', configMap('a', '1'))], SOURCE);
    history.setPaused(true);
    history.record([change('MODIFIED', configMap('a', '2'))], SOURCE);
    assert.equal(history.view().length, 1);
    assert.equal(history.log.held, 1);
    assert.equal(history.find(CONFIGMAPS, 'default', 'a', '2')?.type, 'MODIFIED');
    assert.equal(history.find({ ...CONFIGMAPS, version: 'v2' }, 'default', 'a', '1')?.type, 'ADDED');
    assert.equal(history.find(CONFIGMAPS, 'default', 'a', '3'), undefined);
    assert.equal(history.find(CONFIGMAPS, 'demo', 'a', '1'), undefined);
    history.setPaused(false);
    assert.equal(history.view().length, 2);
  });
});
