import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTable, type Row } from '../src/model/table_data';
import { shownCell, viewColumns } from '../src/model/table_columns';
import { TableStore } from '../src/model/table_store';
import { CONFIGMAP_COLUMNS, table, type TestObject } from './tables';

const NOW = Date.UTC(2024, 5, 1);

function rows(objects: TestObject[]): Row[] {
  return [...parseTable(table(objects), NOW).rows];
}

function names(store: TableStore): string[] {
  const out: string[] = [];
  for (let i = 0; i < store.length; i += 1) {
    out.push(store.at(i)?.name ?? '?');
  }
  return out;
}

function storeOf(objects: TestObject[], withNamespace = false): TableStore {
  const store = new TableStore(withNamespace);
  store.replace(parseTable(table(objects), NOW).columns, rows(objects));
  return store;
}

describe('table data', () => {
  test('rows keep cells as text and the metadata, not managedFields', () => {
    const parsed = parseTable(table([{ name: 'a', rv: '7', cells: ['a', 3, '5m'] }], { rv: '9', continue: 'tok' }), NOW);
    assert.equal(parsed.resourceVersion, '9');
    assert.equal(parsed.continueToken, 'tok');
    assert.deepEqual(parsed.rows[0], {
      key: 'uid-default-a',
      name: 'a',
      namespace: 'default',
      resourceVersion: '7',
      created: Date.UTC(2024, 0, 1),
      receivedAt: NOW,
      cells: ['a', '3', '5m'],
    });
  });

  test('a row without an object is keyed by its name cell; malformed rows are skipped', () => {
    const value = {
      kind: 'Table',
      columnDefinitions: CONFIGMAP_COLUMNS,
      rows: [{ cells: ['x', 1] }, { cells: 'nope' }, 7, { cells: [] }],
    };
    const parsed = parseTable(value, NOW);
    assert.deepEqual(
      parsed.rows.map((r) => [r.key, r.cells]),
      [['/x', ['x', '1', '']]],
    );
  });

  test('a plain list (a server without Tables) reads as names and ages', () => {
    const list = {
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '5', continue: 'c' },
      items: [{ metadata: { name: 'a', namespace: 'n', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' } }, 'junk'],
    };
    const parsed = parseTable(list, NOW);
    assert.deepEqual(parsed.columns.map((c) => c.name), ['Name', 'Age']);
    assert.deepEqual(parsed.rows.map((r) => [r.key, r.name, r.namespace, r.cells]), [['u1', 'a', 'n', ['a', '']]]);
    assert.equal(parsed.continueToken, 'c');
  });

  test('a body that is not a Table is refused', () => {
    assert.throws(() => parseTable({ kind: 'Status' }, NOW), /expected a Table, got Status/);
    assert.throws(() => parseTable('junk', NOW), /expected a Table/);
  });

  test('columns: Namespace first across namespaces, priority 0 before wide ones', () => {
    const server = [
      { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
      { name: 'IP', type: 'string', format: '', description: '', priority: 1 },
      { name: 'Ready', type: 'string', format: '', description: '', priority: 0 },
      { name: 'Restarts', type: 'integer', format: '', description: '', priority: 0 },
      { name: 'Age', type: 'string', format: '', description: '', priority: 0 },
    ];
    const columns = viewColumns(server, true);
    assert.deepEqual(
      columns.map((c) => [c.id, c.source, c.sortAs]),
      [
        ['Namespace', 'namespace', 'text'],
        ['Name', 0, 'text'],
        ['Ready', 2, 'text'],
        ['Restarts', 3, 'number'],
        ['Age', 4, 'time'],
        ['IP', 1, 'text'],
      ],
    );
    assert.equal(columns.find((c) => c.isName)?.id, 'Name');
  });

  test('the Age column is shown from creationTimestamp', () => {
    const store = storeOf([{ name: 'a', created: '2024-06-01T00:00:00Z' }]);
    const age = store.columns.find((c) => c.id === 'Age');
    const row = store.at(0);
    assert.ok(age && row);
    assert.equal(shownCell(row, age, Date.UTC(2024, 5, 1, 0, 3)), '3m');
  });
});

describe('table store', () => {
  test('default order is namespace then name', () => {
    const store = storeOf([{ name: 'b', namespace: 'y' }, { name: 'c', namespace: 'x' }, { name: 'a', namespace: 'y' }], true);
    assert.deepEqual(names(store), ['c', 'a', 'b']);
  });

  test('sorting by text is natural, by number numeric, missing values last', () => {
    const store = storeOf([
      { name: 'pod-10', cells: ['pod-10', 10, '1m'] },
      { name: 'pod-9', cells: ['pod-9', 9, '2m'] },
      { name: 'pod-1', cells: ['pod-1', '', '3m'] },
      { name: 'Pod-2', cells: ['Pod-2', 100, '4m'] },
    ]);
    store.setSort({ column: 'Name', descending: false });
    assert.deepEqual(names(store), ['pod-1', 'Pod-2', 'pod-9', 'pod-10']);
    store.setSort({ column: 'Name', descending: true });
    assert.deepEqual(names(store), ['pod-10', 'pod-9', 'Pod-2', 'pod-1']);
    // Data is a string column in configmaps' Table; numeric text in it sorts naturally.
    store.setSort({ column: 'Data', descending: false });
    assert.deepEqual(names(store), ['pod-9', 'pod-10', 'Pod-2', 'pod-1']);
    store.setSort({ column: 'Data', descending: true });
    assert.deepEqual(names(store), ['Pod-2', 'pod-10', 'pod-9', 'pod-1']);
  });

  test('integer columns sort by value with missing values last either way', () => {
    const columns = [
      { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
      { name: 'Restarts', type: 'integer', format: '', description: '', priority: 0 },
    ];
    const objects = [
      { name: 'a', cells: ['a', 10] },
      { name: 'b', cells: ['b', null] },
      { name: 'c', cells: ['c', 9] },
    ];
    const store = new TableStore(false);
    const parsed = parseTable(table(objects, {}, columns), NOW);
    store.replace(parsed.columns, parsed.rows);
    store.setSort({ column: 'Restarts', descending: false });
    assert.deepEqual(names(store), ['c', 'a', 'b']);
    store.setSort({ column: 'Restarts', descending: true });
    assert.deepEqual(names(store), ['a', 'c', 'b']);
  });

  test('Age sorts by creationTimestamp, youngest first', () => {
    const store = storeOf([
      { name: 'old', created: '2020-01-01T00:00:00Z' },
      { name: 'new', created: '2024-01-01T00:00:00Z' },
      { name: 'mid', created: '2022-01-01T00:00:00Z' },
    ]);
    store.setSort({ column: 'Age', descending: false });
    assert.deepEqual(names(store), ['new', 'mid', 'old']);
    store.setSort({ column: 'Age', descending: true });
    assert.deepEqual(names(store), ['old', 'mid', 'new']);
  });

  test('sorting is stable: equal keys keep namespace/name order', () => {
    const store = storeOf(
      [
        { name: 'b', namespace: 'n2', cells: ['b', 1, '1m'] },
        { name: 'a', namespace: 'n2', cells: ['a', 1, '1m'] },
        { name: 'c', namespace: 'n1', cells: ['c', 1, '1m'] },
      ],
      true,
    );
    store.setSort({ column: 'Data', descending: true });
    assert.deepEqual(names(store), ['c', 'a', 'b']);
  });

  test('an unknown sort column leaves the default order', () => {
    const store = storeOf([{ name: 'b' }, { name: 'a' }]);
    store.setSort({ column: 'Nope', descending: true });
    assert.deepEqual(names(store), ['a', 'b']);
  });

  test('the filter is a case-insensitive substring of any cell', () => {
    const store = storeOf([
      { name: 'web-1', cells: ['web-1', 1, '1m'] },
      { name: 'db', cells: ['db', 'WEBhook', '1m'] },
      { name: 'cache', cells: ['cache', 2, '1m'] },
    ]);
    store.setFilter('Web');
    assert.deepEqual(names(store), ['db', 'web-1']);
    assert.equal(store.size, 3);
    store.setFilter('');
    assert.equal(store.length, 3);
  });

  test('watch changes apply in place, keeping order, filter and sort', () => {
    const store = storeOf([{ name: 'a' }, { name: 'c' }, { name: 'e' }, { name: 'g' }, { name: 'i' }, { name: 'k' }, { name: 'm' }, { name: 'o' }, { name: 'q' }]);
    store.setFilter('');
    const revision = store.revision;
    const [d] = rows([{ name: 'd' }]);
    const [cMoved] = rows([{ name: 'c', cells: ['c', 5, '1m'] }]);
    const [gone] = rows([{ name: 'k' }]);
    assert.ok(d && cMoved && gone);
    store.apply([
      { type: 'ADDED', row: d },
      { type: 'MODIFIED', row: cMoved },
      { type: 'DELETED', row: gone },
    ]);
    assert.notEqual(store.revision, revision);
    assert.deepEqual(names(store), ['a', 'c', 'd', 'e', 'g', 'i', 'm', 'o', 'q']);
    assert.equal(store.get('uid-default-c')?.cells[1], '5');
    assert.equal(store.indexOf('uid-default-d'), 2);
    assert.equal(store.indexOf('uid-default-k'), -1);
    store.setSort({ column: 'Data', descending: true });
    assert.equal(names(store)[0], 'c');
    const [cBack] = rows([{ name: 'c', cells: ['c', 0, '1m'] }]);
    assert.ok(cBack);
    store.apply([{ type: 'MODIFIED', row: cBack }]);
    assert.deepEqual(names(store), ['a', 'd', 'e', 'g', 'i', 'm', 'o', 'q', 'c']);
  });

  test('a row changed where it sorts the same stays at its place, with its new cells', () => {
    // Ten rows (one change is not a batch that rebuilds), Data 0, 2, 4... in name order.
    const store = storeOf([...'abcdefghij'].map((name, i) => ({ name, cells: [name, i * 2, '1m'] })));
    store.setSort({ column: 'Data', descending: false });
    const [bMore, bLast, bFirst] = rows([
      { name: 'b', cells: ['b', 3, '1m'] },
      { name: 'b', cells: ['b', 99, '1m'] },
      { name: 'b', cells: ['b', -1, '1m'] },
    ]);
    assert.ok(bMore && bLast && bFirst);
    // 3 is still between a's 0 and c's 4: the same place, the new row.
    store.apply([{ type: 'MODIFIED', row: bMore }]);
    assert.deepEqual(names(store), [...'abcdefghij']);
    assert.equal(store.at(1), bMore);
    assert.equal(store.indexOf('uid-default-b'), 1);
    // Past its neighbours it moves, either way.
    store.apply([{ type: 'MODIFIED', row: bLast }]);
    assert.deepEqual(names(store), [...'acdefghijb']);
    assert.equal(store.at(9), bLast);
    store.apply([{ type: 'MODIFIED', row: bFirst }]);
    assert.deepEqual(names(store), [...'bacdefghij']);
    assert.equal(store.at(0), bFirst);
  });

  test('a change to a filtered-out row leaves the view alone until it matches', () => {
    const store = storeOf([{ name: 'web-1' }, { name: 'web-2' }, { name: 'web-3' }, { name: 'db-1' }, { name: 'db-2' }, { name: 'db-3' }, { name: 'db-4' }, { name: 'db-5' }, { name: 'db-6' }]);
    store.setFilter('web');
    const [renamed] = rows([{ name: 'db-1', cells: ['db-1', 'web', '1m'] }]);
    assert.ok(renamed);
    store.apply([{ type: 'MODIFIED', row: renamed }]);
    assert.deepEqual(names(store), ['db-1', 'web-1', 'web-2', 'web-3']);
  });

  test('incremental changes match a rebuild over many random events', () => {
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const initial = Array.from({ length: 300 }, (_, i) => ({ name: `cm-${i}`, cells: [`cm-${i}`, i % 7, '1m'] }));
    const store = storeOf(initial);
    store.setSort({ column: 'Data', descending: true });
    store.setFilter('1');
    for (let step = 0; step < 500; step += 1) {
      const i = random(400);
      const type = random(4) === 0 ? 'DELETED' : random(2) === 0 ? 'ADDED' : 'MODIFIED';
      const [row] = rows([{ name: `cm-${i}`, cells: [`cm-${i}`, random(9), '1m'] }]);
      assert.ok(row);
      store.apply([{ type, row }]);
    }
    const incremental = names(store);
    // A fresh store of the same rows, sorted and filtered the same way.
    const all: Row[] = [];
    store.setFilter('');
    for (let i = 0; i < store.length; i += 1) {
      const row = store.at(i);
      if (row) {
        all.push(row);
      }
    }
    const fresh = new TableStore(false);
    fresh.replace(store.listColumns, all);
    fresh.setSort({ column: 'Data', descending: true });
    fresh.setFilter('1');
    assert.deepEqual(incremental, names(fresh));
  });

  test('50,000 rows load, sort and filter quickly', () => {
    const objects = Array.from({ length: 50_000 }, (_, i) => ({ name: `cm-${i}`, namespace: `ns-${i % 50}`, cells: [`cm-${i}`, i % 13, '1m'] }));
    const parsed = parseTable(table(objects), NOW);
    const started = performance.now();
    const store = new TableStore(true);
    store.replace(parsed.columns, parsed.rows);
    store.setSort({ column: 'Name', descending: true });
    store.setFilter('cm-4');
    const elapsed = performance.now() - started;
    assert.equal(store.size, 50_000);
    assert.equal(store.length, 11_111);
    assert.equal(store.at(0)?.name, 'cm-49999');
    assert.ok(elapsed < 3000, `took ${elapsed} ms`);
  });
});
