import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../src/model/errors';
import { nextSort } from '../src/model/table_store';
import { columnWidths, MAX_COLUMN_PX, MIN_COLUMN_PX } from '../src/ui/column_widths';
import { yamlIndentAfter } from '../src/ui/yaml_indent';
import type { LoggedEvent } from '../src/model/event_log';
import { diffObjects } from '../src/model/json_diff';
import {
  clockText,
  diffSummary,
  emptyLogText,
  eventObjectText,
  eventSummary,
  goneEventText,
  logCountText,
  missingDiffText,
  pausedText,
} from '../src/ui/event_text';
import { feedLine, rowsText } from '../src/ui/status_text';
import { splitYamlLine } from '../src/ui/yaml_lines';

describe('column widths', () => {
  const measure = { cell: (t: string) => t.length * 7, header: (t: string) => t.length * 8 };

  test('the widest of header and cells, within bounds', () => {
    const widths = columnWidths(
      [
        { label: 'Name', isAge: false },
        { label: 'Data', isAge: false },
        { label: 'Age', isAge: true },
        { label: 'Message', isAge: false },
      ],
      [
        ['a-very-long-configmap-name', '1', '5s', 'x'.repeat(500)],
        ['short', '22', '10m', ''],
      ],
      measure,
    );
    assert.equal(widths[0], 26 * 7 + 20);
    assert.equal(widths[1], Math.max(4 * 8 + 32, MIN_COLUMN_PX));
    assert.equal(widths[2], 6 * 7 + 20);
    assert.equal(widths[3], MAX_COLUMN_PX);
  });
});

describe('status text', () => {
  test('rows', () => {
    assert.equal(rowsText(50_000, 50_000, false), '50,000 rows');
    assert.equal(rowsText(12, 50_000, true), '12 of 50,000 rows');
    assert.equal(rowsText(1, 1, false), '1 row');
  });

  test('feed phases', () => {
    assert.deepEqual(feedLine({ phase: 'listing', listed: 1500 }, false), { text: 'Listing… 1,500 rows read', tone: 'busy' });
    assert.equal(feedLine({ phase: 'live', listed: 0 }, true).tone, 'ok');
    const error = new ApiError('status', 'configmaps is forbidden', { code: 403, reason: 'Forbidden' });
    assert.deepEqual(feedLine({ phase: 'retrying', listed: 0, error }, false), {
      text: 'List failed: configmaps is forbidden (Forbidden, 403). Retrying…',
      tone: 'error',
    });
  });
});

describe('sort cycle', () => {
  test('ascending, descending, none; another column starts ascending', () => {
    assert.deepEqual(nextSort(undefined, 'Age'), { column: 'Age', descending: false });
    assert.deepEqual(nextSort({ column: 'Age', descending: false }, 'Age'), { column: 'Age', descending: true });
    assert.equal(nextSort({ column: 'Age', descending: true }, 'Age'), undefined);
    assert.deepEqual(nextSort({ column: 'Age', descending: true }, 'Name'), { column: 'Name', descending: false });
  });
});

describe('yaml lines', () => {
  test('keys, values and list items', () => {
    assert.deepEqual(splitYamlLine('  name: web'), { indent: '  ', key: 'name:', value: ' web', kind: 'string' });
    assert.deepEqual(splitYamlLine('  replicas: 3'), { indent: '  ', key: 'replicas:', value: ' 3', kind: 'number' });
    assert.deepEqual(splitYamlLine('metadata:'), { indent: '', key: 'metadata:', value: '', kind: 'none' });
    assert.deepEqual(splitYamlLine('  - name: c'), { indent: '  - ', key: 'name:', value: ' c', kind: 'string' });
    assert.deepEqual(splitYamlLine('  - kubernetes'), { indent: '  - ', key: '', value: 'kubernetes', kind: 'string' });
    assert.deepEqual(splitYamlLine('  "a:b": true'), { indent: '  ', key: '"a:b":', value: ' true', kind: 'literal' });
    assert.deepEqual(splitYamlLine('  app.kubernetes.io/name: x'), { indent: '  ', key: 'app.kubernetes.io/name:', value: ' x', kind: 'string' });
    assert.deepEqual(splitYamlLine('    {"apiVersion":"v1"}'), { indent: '', key: '', value: '    {"apiVersion":"v1"}', kind: 'string' });
  });
});

describe('event text', () => {
  const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime();
  const object = { kind: 'ConfigMap', metadata: { name: 'a' } };
  const event: LoggedEvent = {
    seq: 1,
    receivedAt: at,
    type: 'MODIFIED',
    ref: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespace: 'default',
    name: 'a',
    uid: 'u',
    resourceVersion: '42',
    object,
    previous: object,
  };

  test('times, objects, counts', () => {
    assert.equal(clockText(at), '03:04:05.006');
    assert.equal(eventObjectText(event), 'default/a');
    assert.equal(eventObjectText({ ...event, namespace: '' }), 'a');
    assert.equal(eventObjectText({ ...event, type: 'BOOKMARK', name: '' }), 'default (bookmark)');
    assert.equal(eventObjectText({ ...event, type: 'BOOKMARK', name: '', namespace: '' }), '(bookmark)');
    assert.equal(logCountText(1, 0), '1 event');
    assert.equal(logCountText(5000, 12_345), '5,000 events · 12,345 dropped');
    assert.equal(pausedText(3), 'Paused · 3 new');
    assert.match(emptyLogText(0, false), /^No watch events yet/);
    assert.equal(emptyLogText(3, false), 'No event passes the filter.');
    assert.equal(emptyLogText(3, true), 'Paused before any event passed the filter.');
    assert.equal(eventSummary(event), 'MODIFIED at resourceVersion 42, 03:04:05.006');
    assert.match(goneEventText('42', 'ConfigMap', 5000), /^The ConfigMap event at resourceVersion 42 is not in this page's log \(it keeps the last 5,000 events/);
  });

  test('why there is no diff', () => {
    assert.equal(missingDiffText(event), undefined);
    assert.match(missingDiffText({ ...event, type: 'ADDED', previous: null }) ?? '', /^ADDED: the object was created by this event/);
    assert.match(missingDiffText({ ...event, previous: null }) ?? '', /^The version before this one was not seen by this page/);
    assert.match(missingDiffText({ ...event, object: null }) ?? '', /only the metadata/);
  });

  test('diff summaries', () => {
    assert.equal(diffSummary(diffObjects({ a: 1, b: 2 }, { a: 2, c: 3 }, { hideNoise: true, foldUnchanged: true }), true), '1 changed · 1 added · 1 removed');
    assert.equal(diffSummary(diffObjects({ a: 1 }, { a: 1 }, { hideNoise: true, foldUnchanged: true }), true), 'No change besides resourceVersion, generation and managedFields.');
    assert.equal(diffSummary(diffObjects({ a: 1 }, { a: 1 }, { hideNoise: false, foldUnchanged: true }), false), 'No change.');
  });
});

describe('YAML indentation after Enter', () => {
  test('the line\'s own indentation; one level deeper after a key opening a block', () => {
    assert.equal(yamlIndentAfter('data:'), '  ');
    assert.equal(yamlIndentAfter('  colour: violet'), '  ');
    assert.equal(yamlIndentAfter('  labels:'), '    ');
    assert.equal(yamlIndentAfter('  labels:   # the selectors use them'), '    ');
    assert.equal(yamlIndentAfter('  script: |'), '    ');
    assert.equal(yamlIndentAfter('  note: "a: b"'), '  ');
    assert.equal(yamlIndentAfter(''), '');
  });

  test('a list item continues at its content', () => {
    assert.equal(yamlIndentAfter('  - name: web'), '    ');
    assert.equal(yamlIndentAfter('- '), '  ');
    assert.equal(yamlIndentAfter('  - ports:'), '      ');
  });
});
