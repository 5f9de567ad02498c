import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSplitter } from '../src/model/line_splitter';
import { field, stringField } from '../src/model/json';
import { parseColumns } from '../src/model/table_data';
import { parseWatchEvent } from '../src/model/watch_event';
import { bookmarkLine, CONFIGMAP_COLUMNS, errorLine, watchLine } from './tables';

const COLUMNS = parseColumns({ columnDefinitions: CONFIGMAP_COLUMNS });

describe('line splitter', () => {
  test('splits on newlines across chunks, skipping blank lines and CRs', () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push('ab'), []);
    assert.deepEqual(splitter.push('c\nde\r\n\n'), ['abc', 'de']);
    assert.deepEqual(splitter.push('f'), []);
    assert.deepEqual(splitter.finish(), ['f']);
    assert.deepEqual(splitter.finish(), []);
  });

  test('a line over the limit is an error, and the buffer is dropped', () => {
    const splitter = new LineSplitter(10);
    assert.deepEqual(splitter.push('12345'), []);
    assert.throws(() => splitter.push('678901'), /longer than 10/);
    assert.deepEqual(splitter.push('ok\n'), ['ok']);
  });
});

describe('watch events', () => {
  test('ADDED, MODIFIED and DELETED carry the row and its object', () => {
    for (const type of ['ADDED', 'MODIFIED', 'DELETED']) {
      const event = parseWatchEvent(watchLine(type, { name: 'a', rv: '5' }), COLUMNS, 0);
      assert.equal(event.type, type);
      assert.ok('items' in event);
      assert.equal(event.items[0]?.row.name, 'a');
      assert.equal(stringField(field(event.items[0]?.object, 'metadata'), 'uid'), 'uid-default-a');
      assert.equal(event.resourceVersion, '5');
    }
  });

  test('BOOKMARK carries a resourceVersion, ERROR the Status', () => {
    assert.deepEqual(parseWatchEvent(bookmarkLine('77'), COLUMNS, 0), { type: 'BOOKMARK', resourceVersion: '77' });
    const error = parseWatchEvent(errorLine(410, 'Expired', 'too old resource version: 1 (312)'), COLUMNS, 0);
    assert.equal(error.type, 'ERROR');
    assert.ok('error' in error);
    assert.equal(error.error.code, 410);
    assert.equal(error.error.message, 'too old resource version: 1 (312)');
  });

  test('lines that are not events are errors', () => {
    assert.throws(() => parseWatchEvent('{"type":"NOPE"}', COLUMNS, 0), /not an event/);
    assert.throws(() => parseWatchEvent('garbage', COLUMNS, 0), /not an event/);
    assert.throws(() => parseWatchEvent('{"type":"ADDED","object":{"kind":"Pod"}}', COLUMNS, 0), /without an object/);
  });

  test('a plain object (a server without Tables) is a row of name and age', () => {
    const line = JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: 'p', namespace: 'd', uid: 'u', resourceVersion: '9' } } });
    const event = parseWatchEvent(line, COLUMNS, 0);
    assert.ok('items' in event);
    assert.deepEqual(event.items.map((i) => [i.row.key, i.row.cells]), [['u', ['p', '']]]);
    assert.equal(stringField(event.items[0]?.object, 'kind'), 'Pod');
    assert.equal(event.resourceVersion, '9');
  });
});
