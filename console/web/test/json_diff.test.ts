import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diffObjects, isUnchanged, type DiffLine, type DiffOptions } from '../src/model/json_diff';
import { jsonEqual } from '../src/model/json';
import { alignKeys, alignSequences } from '../src/model/sequence_align';
import { blockLines, clipText, elideCommon, yamlKey, yamlScalar } from '../src/model/yaml_text';

const MARK = { same: ' ', added: '+', removed: '-', changed: '~' };

// Each line as the pane shows it: mark, indent, text, the old value, the lines folded.
function show(lines: readonly DiffLine[]): string[] {
  return lines.map(
    (l) => `${MARK[l.mark]} ${l.indent}${l.text}${l.was !== undefined ? ` (was ${l.was})` : ''}${l.folded !== undefined ? ` [${l.folded}]` : ''}`,
  );
}

const FULL: DiffOptions = { hideNoise: false, foldUnchanged: false };
const FOLDED: DiffOptions = { hideNoise: false, foldUnchanged: true };

describe('structural diff', () => {
  test('a scalar changed in a nested map; unchanged maps folded', () => {
    const before = { kind: 'Deployment', spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } } };
    const after = { kind: 'Deployment', spec: { replicas: 5, selector: { matchLabels: { app: 'web' } } } };
    const diff = diffObjects(before, after, FOLDED);
    assert.deepEqual(show(diff.lines), ['  kind: Deployment', '~ spec:', '~   replicas: 5 (was 3)', '    selector: {…} [3]']);
    assert.deepEqual([diff.added, diff.removed, diff.changed], [0, 0, 1]);
    assert.deepEqual(show(diffObjects(before, after, FULL).lines).slice(3), ['    selector:', '      matchLabels:', '        app: web']);
  });

  test('keys added and removed, in place, with every line of their values', () => {
    const before = { a: 1, gone: { x: [1, 2] }, c: 3 };
    const after = { a: 1, c: 3, added: { w: 'z' } };
    const diff = diffObjects(before, after, FOLDED);
    assert.deepEqual(show(diff.lines), ['  a: 1', '- gone:', '-   x:', '-   - 1', '-   - 2', '  c: 3', '+ added:', '+   w: z']);
    assert.deepEqual([diff.added, diff.removed, diff.changed], [1, 1, 0]);
  });

  test('a scalar that changes type shows it, quoted when a string', () => {
    const diff = diffObjects({ replicas: 3, port: '8080', flag: true, v: null }, { replicas: '3', port: 8080, flag: 'true', v: 0 }, FULL);
    assert.deepEqual(show(diff.lines), ['~ replicas: "3" (was 3)', '~ port: 8080 (was "8080")', '~ flag: "true" (was true)', '~ v: 0 (was null)']);
    assert.equal(diff.changed, 4);
  });

  test('a scalar becoming a map or a list is removed then added', () => {
    const diff = diffObjects({ a: 'x', b: [1], c: { d: 1 } }, { a: { w: 1 }, b: { k: 1 }, c: [] }, FULL);
    assert.deepEqual(show(diff.lines), ['- a: x', '+ a:', '+   w: 1', '- b:', '- - 1', '+ b:', '+   k: 1', '- c:', '-   d: 1', '+ c: []']);
    assert.deepEqual([diff.added, diff.removed, diff.changed], [0, 0, 3]);
  });

  test('lists of named items are matched by name, whatever their order', () => {
    const before = { containers: [{ name: 'web', image: 'web:1' }, { name: 'side', image: 's' }] };
    const after = { containers: [{ name: 'web', image: 'web:2' }, { name: 'side', image: 's' }, { name: 'new', image: 'new:1' }] };
    assert.deepEqual(show(diffObjects(before, after, FOLDED).lines), [
      '~ containers:',
      '  - name: web',
      '~   image: web:2 (was web:1)',
      '  - {name: side, …} [2]',
      '+ - name: new',
      '+   image: new:1',
    ]);
    const removedFirst = diffObjects(before, { containers: [{ name: 'side', image: 's' }] }, FOLDED);
    assert.deepEqual(show(removedFirst.lines), ['~ containers:', '- - name: web', '-   image: web:1', '  - {name: side, …} [2]']);
  });

  test('named items that change places are still the same items; a renamed one is removed and added', () => {
    const before = { conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True' }] };
    const after = { conditions: [{ type: 'Progressing', status: 'True' }, { type: 'Available', status: 'False' }] };
    assert.deepEqual(show(diffObjects(before, after, FOLDED).lines), [
      '~ conditions:',
      '  - {type: Progressing, …} [2]',
      '  - type: Available',
      '~   status: "False" (was "True")',
    ]);
    const renamed = diffObjects({ c: [{ name: 'a', x: 1 }] }, { c: [{ name: 'b', x: 1 }] }, FULL);
    assert.deepEqual(show(renamed.lines), ['~ c:', '- - name: a', '-   x: 1', '+ - name: b', '+   x: 1']);
  });

  test('conditions are matched by type', () => {
    const before = { conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True' }] };
    const after = { conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'False' }] };
    assert.deepEqual(show(diffObjects(before, after, FOLDED).lines), [
      '~ conditions:',
      '  - {type: Available, …} [2]',
      '  - type: Progressing',
      '~   status: "False" (was "True")',
    ]);
  });

  test('lists of scalars are aligned; maps without names in the same place are one item changed', () => {
    assert.deepEqual(show(diffObjects({ args: ['a', 'b', 'c'] }, { args: ['a', 'c', 'd'] }, FULL).lines), [
      '~ args:',
      '  - a',
      '- - b',
      '  - c',
      '+ - d',
    ]);
    assert.deepEqual(show(diffObjects({ ports: [{ port: 80 }] }, { ports: [{ port: 81 }] }, FULL).lines), ['~ ports:', '~ - port: 81 (was 80)']);
    assert.deepEqual(show(diffObjects({ l: ['a', 'p', 'q', 'b'] }, { l: ['a', 'z', 'b'] }, FULL).lines), [
      '~ l:',
      '  - a',
      '- - p',
      '- - q',
      '+ - z',
      '  - b',
    ]);
    assert.deepEqual(show(diffObjects({ m: [[1, 2]] }, { m: [[1, 3]] }, FULL).lines), ['~ m:', '  - - 1', '-   - 2', '+   - 3']);
  });

  test('long strings show around where they differ', () => {
    const head = 'h'.repeat(400);
    const tail = 't'.repeat(400);
    const diff = diffObjects({ note: `${head}OLD${tail}` }, { note: `${head}NEW${tail}` }, FOLDED);
    const [removed, added] = diff.lines;
    assert.equal(removed?.mark, 'removed');
    assert.equal(added?.mark, 'added');
    assert.equal(removed?.text, `note: …${'h'.repeat(40)}OLD${'t'.repeat(40)}…`);
    assert.equal(added?.text, `note: …${'h'.repeat(40)}NEW${'t'.repeat(40)}…`);
    assert.equal(diff.changed, 1);
    const medium = diffObjects({ s: 'a'.repeat(70) }, { s: 'b'.repeat(70) }, FULL);
    assert.deepEqual(medium.lines.map((l) => l.mark), ['removed', 'added']);
  });

  test('multi-line strings are compared line by line, unchanged runs cut', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const changed = lines.map((l, i) => (i === 10 ? 'line ten' : l));
    const diff = diffObjects({ data: { 'app.conf': `${lines.join('\n')}\n` } }, { data: { 'app.conf': `${changed.join('\n')}\n` } }, FOLDED);
    assert.deepEqual(show(diff.lines), [
      '~ data:',
      '~   app.conf: |',
      '      … [7]',
      '      line 7',
      '      line 8',
      '      line 9',
      '-     line 10',
      '+     line ten',
      '      line 11',
      '      line 12',
      '      line 13',
      '      … [6]',
    ]);
    const unchanged = diffObjects({ data: { f: 'a\nb\n', g: 1 } }, { data: { f: 'a\nb\n', g: 2 } }, FOLDED);
    assert.deepEqual(show(unchanged.lines), ['~ data:', '    f: | … [3]', '~   g: 2 (was 1)']);
  });

  test('a string that becomes multi-line is compared as a block', () => {
    const diff = diffObjects({ s: 'one' }, { s: 'one\ntwo' }, FULL);
    assert.deepEqual(show(diff.lines), ['~ s: |-', '    one', '+   two']);
  });

  test('noise hidden: managedFields, resourceVersion and generation', () => {
    const before = { metadata: { name: 'a', resourceVersion: '1', generation: 1, managedFields: [{ manager: 'x' }] }, spec: { n: 1 } };
    const after = { metadata: { name: 'a', resourceVersion: '2', generation: 2, managedFields: [{ manager: 'y' }] }, spec: { n: 1 } };
    const quiet = diffObjects(before, after, { hideNoise: true, foldUnchanged: true });
    assert.ok(isUnchanged(quiet));
    assert.deepEqual(show(quiet.lines), ['  metadata: {…} [2]', '  spec: {…} [2]']);
    const loud = diffObjects(before, after, { hideNoise: false, foldUnchanged: true });
    assert.equal(loud.changed, 3);
    assert.ok(show(loud.lines).includes('~   resourceVersion: "2" (was "1")'));
  });

  test('equal objects: nothing changed, the top level folded field by field', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'y' } }, data: {} };
    const diff = diffObjects(object, structuredClone(object), FOLDED);
    assert.ok(isUnchanged(diff));
    assert.deepEqual(show(diff.lines), ['  apiVersion: v1', '  kind: ConfigMap', '  metadata: {…} [4]', '  data: {}']);
  });

  test('keys that need quoting are quoted', () => {
    const diff = diffObjects({}, { 'a: b': 1, 'app.kubernetes.io/name': 'x', yes: 'no', '': '' }, FULL);
    assert.deepEqual(show(diff.lines), ['+ "a: b": 1', '+ app.kubernetes.io/name: x', '+ "yes": "no"', '+ "": ""']);
  });
});

describe('yaml text', () => {
  test('scalars plain when YAML reads them back as the same string', () => {
    assert.equal(yamlScalar('web'), 'web');
    assert.equal(yamlScalar('nginx:1.25'), 'nginx:1.25');
    assert.equal(yamlScalar('3'), '"3"');
    assert.equal(yamlScalar('1e3'), '"1e3"');
    assert.equal(yamlScalar('true'), '"true"');
    assert.equal(yamlScalar('null'), '"null"');
    assert.equal(yamlScalar(''), '""');
    assert.equal(yamlScalar('- x'), '"- x"');
    assert.equal(yamlScalar('a: b'), '"a: b"');
    assert.equal(yamlScalar('a #b'), '"a #b"');
    assert.equal(yamlScalar(' lead'), '" lead"');
    assert.equal(yamlScalar('tab\there'), '"tab\\there"');
    assert.equal(yamlScalar('2024-01-01T00:00:00Z'), '2024-01-01T00:00:00Z');
    assert.equal(yamlScalar(null), 'null');
    assert.equal(yamlScalar(false), 'false');
    assert.equal(yamlScalar(1.5), '1.5');
    assert.equal(yamlKey('metadata'), 'metadata');
    assert.equal(yamlKey('1'), '"1"');
    assert.equal(yamlKey('y'), '"y"');
  });

  test('blocks, clipping, elision', () => {
    assert.deepEqual(blockLines('a\nb\n'), { indicator: '|', lines: ['a', 'b'] });
    assert.deepEqual(blockLines('a\nb'), { indicator: '|-', lines: ['a', 'b'] });
    assert.equal(clipText('abcdef', 4), 'abc…');
    assert.equal(clipText('abc', 4), 'abc');
    assert.deepEqual(elideCommon('short', 'other', 10, 2), ['short', 'other']);
    assert.deepEqual(elideCommon('aaaaaaXaaaaaa', 'aaaaaaYaaaaaa', 8, 2), ['…aaXaa…', '…aaYaa…']);
    assert.deepEqual(elideCommon('abcdefghij', 'abcdefghijKLM', 8, 2), ['…ij', '…ijKLM']);
  });
});

describe('sequence alignment', () => {
  test('a shortest edit between the common head and tail', () => {
    const steps = alignSequences(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'e'], (p, q) => p === q);
    assert.deepEqual(
      steps.map((s) => s.op),
      ['same', 'removed', 'added', 'same', 'same', 'added'],
    );
  });

  test('keys: matched whatever their order, removed ones where they were', () => {
    assert.deepEqual(alignKeys(['a', 'b', 'c'], ['c', 'a', 'd']), [
      { op: 'removed', before: 1 },
      { op: 'same', before: 2, after: 0 },
      { op: 'same', before: 0, after: 1 },
      { op: 'added', after: 2 },
    ]);
    assert.deepEqual(alignKeys(['a', 'gone', 'b'], ['a', 'b']), [
      { op: 'same', before: 0, after: 0 },
      { op: 'removed', before: 1 },
      { op: 'same', before: 2, after: 1 },
    ]);
  });

  test('too large a middle is all removed then all added', () => {
    const steps = alignSequences(['a', 'b', 'c'], ['c', 'b', 'a'], (p, q) => p === q, 4);
    assert.deepEqual(
      steps.map((s) => s.op),
      ['removed', 'removed', 'removed', 'added', 'added', 'added'],
    );
  });

  test('empty sides', () => {
    assert.deepEqual(alignSequences([], ['a'], (p, q) => p === q), [{ op: 'added', after: 0 }]);
    assert.deepEqual(alignSequences(['a'], [], (p, q) => p === q), [{ op: 'removed', before: 0 }]);
  });
});

describe('json equality', () => {
  test('maps in any key order, lists in order', () => {
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: undefined }));
    assert.ok(!jsonEqual([1, 2], [2, 1]));
    assert.ok(!jsonEqual({ a: '1' }, { a: 1 }));
    assert.ok(!jsonEqual([], {}));
  });
});
