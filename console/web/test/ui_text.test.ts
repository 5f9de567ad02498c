import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../src/model/errors';
import { nextSort } from '../src/model/table_store';
import { columnWidths, MAX_COLUMN_PX, MIN_COLUMN_PX } from '../src/ui/column_widths';
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
