import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cellText, humanAge, instantOf, naturalKey, numberKey, parseAge, parseTimestamp } from '../src/model/table_cells';

describe('table cells', () => {
  test('cell text', () => {
    assert.equal(cellText('a'), 'a');
    assert.equal(cellText(3), '3');
    assert.equal(cellText(true), 'true');
    assert.equal(cellText(null), '');
    assert.equal(cellText(undefined), '');
    assert.equal(cellText({ a: 1 }), '{"a":1}');
  });

  test('natural order: digit runs by value, case ignored', () => {
    const names = ['pod-10', 'Pod-9', 'pod-1', 'pod-010b', 'pod-2a', 'pod-', 'pod-a'];
    const sorted = [...names].sort((a, b) => (naturalKey(a) < naturalKey(b) ? -1 : naturalKey(a) > naturalKey(b) ? 1 : 0));
    assert.deepEqual(sorted, ['pod-', 'pod-1', 'pod-2a', 'Pod-9', 'pod-10', 'pod-010b', 'pod-a']);
    assert.notEqual(naturalKey('a01'), naturalKey('a1'));
    assert.ok(naturalKey('x99999999999999999999') < naturalKey('x100000000000000000000'));
  });

  test('ages as kubectl writes them', () => {
    assert.equal(parseAge('45s'), 45);
    assert.equal(parseAge('5m30s'), 330);
    assert.equal(parseAge('3d4h'), 3 * 86400 + 4 * 3600);
    assert.equal(parseAge('2y10d'), 2 * 365 * 86400 + 10 * 86400);
    assert.equal(parseAge('<invalid>'), undefined);
    assert.equal(parseAge(''), undefined);
    assert.equal(parseAge('5x'), undefined);
  });

  test('humanAge matches kubectl', () => {
    const s = 1000;
    assert.equal(humanAge(-5 * s), '<invalid>');
    assert.equal(humanAge(-500), '0s');
    assert.equal(humanAge(59 * s), '59s');
    assert.equal(humanAge(119 * s), '119s');
    assert.equal(humanAge(120 * s), '2m');
    assert.equal(humanAge(150 * s), '2m30s');
    assert.equal(humanAge(10 * 60 * s), '10m');
    assert.equal(humanAge(179 * 60 * s), '179m');
    assert.equal(humanAge(3 * 3600 * s), '3h');
    assert.equal(humanAge((3 * 3600 + 5 * 60) * s), '3h5m');
    assert.equal(humanAge(47 * 3600 * s), '47h');
    assert.equal(humanAge((3 * 86400 + 4 * 3600) * s), '3d4h');
    assert.equal(humanAge(100 * 86400 * s), '100d');
    assert.equal(humanAge((2 * 365 + 10) * 86400 * s), '2y10d');
    assert.equal(humanAge(9 * 365 * 86400 * s), '9y');
  });

  test('timestamps and instants', () => {
    assert.equal(parseTimestamp('2024-01-01T00:00:00Z'), Date.UTC(2024, 0, 1));
    assert.equal(parseTimestamp('2024-01-01T01:00:00.5+01:00'), Date.UTC(2024, 0, 1) + 500);
    assert.equal(parseTimestamp('yesterday'), undefined);
    assert.equal(instantOf('2024-01-01T00:00:00Z', 0), Date.UTC(2024, 0, 1));
    assert.equal(instantOf('5m', 1_000_000), 1_000_000 - 300_000);
    assert.ok(Number.isNaN(instantOf('<none>', 0)));
  });

  test('number keys', () => {
    assert.equal(numberKey('42'), 42);
    assert.equal(numberKey(' 1.5 '), 1.5);
    assert.ok(Number.isNaN(numberKey('')));
    assert.ok(Number.isNaN(numberKey('<none>')));
  });
});
