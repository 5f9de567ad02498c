import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { anchorAt, assignSlots, clampScrollTop, pageStep, scrollForAnchor, scrollToReveal, visibleRange } from '../src/model/virtual_scroll';

describe('virtual scroll', () => {
  test('the range at the top', () => {
    assert.deepEqual(visibleRange({ rowHeight: 24, viewportHeight: 240, scrollTop: 0, total: 50_000, overscan: 5 }), {
      first: 0,
      last: 15,
      totalHeight: 1_200_000,
    });
  });

  test('the range mid-list, with overscan either side and a partly shown row', () => {
    const range = visibleRange({ rowHeight: 24, viewportHeight: 240, scrollTop: 24 * 1000 + 10, total: 50_000, overscan: 5 });
    assert.deepEqual(range, { first: 995, last: 1016, totalHeight: 1_200_000 });
  });

  test('the range at the end is clamped to the rows', () => {
    const range = visibleRange({ rowHeight: 24, viewportHeight: 240, scrollTop: 24 * 49_990, total: 50_000, overscan: 5 });
    assert.deepEqual(range, { first: 49_985, last: 50_000, totalHeight: 1_200_000 });
  });

  test('a scrollTop past the end (the list shrank) shows the end, no rows past it', () => {
    const range = visibleRange({ rowHeight: 24, viewportHeight: 240, scrollTop: 1_000_000, total: 10, overscan: 5 });
    assert.deepEqual(range, { first: 10, last: 10, totalHeight: 240 });
  });

  test('nothing to show', () => {
    assert.deepEqual(visibleRange({ rowHeight: 24, viewportHeight: 240, scrollTop: 0, total: 0, overscan: 5 }), {
      first: 0,
      last: 0,
      totalHeight: 0,
    });
  });

  test('revealing a row scrolls the least', () => {
    assert.equal(scrollToReveal(5, 24, 240, 0), 0);
    assert.equal(scrollToReveal(10, 24, 240, 0), 24);
    assert.equal(scrollToReveal(3, 24, 240, 200), 72);
    assert.equal(scrollToReveal(0, 24, 240, 500), 0);
  });

  test('an anchor keeps its row where it was', () => {
    const anchor = anchorAt(24 * 100 + 7, 24);
    assert.deepEqual(anchor, { index: 100, offset: 7 });
    // Three rows were inserted above it.
    assert.equal(scrollForAnchor(103, anchor, 24, 1000, 240), 24 * 103 + 7);
    // Clamped at the end of the list.
    assert.equal(scrollForAnchor(103, anchor, 24, 100, 240), 24 * 100 - 240);
  });

  test('a scrollTop written is clamped to the list, in whole pixels', () => {
    assert.equal(clampScrollTop(-5, 1000, 24, 240), 0);
    assert.equal(clampScrollTop(1234.6, 1000, 24, 240), 1235);
    assert.equal(clampScrollTop(1_000_000, 1000, 24, 240), 24 * 1000 - 240);
    // A list shorter than the viewport does not scroll.
    assert.equal(clampScrollTop(50, 5, 24, 240), 0);
  });

  test('a page is a viewport less a row', () => {
    assert.equal(pageStep(24, 240), 9);
    assert.equal(pageStep(24, 10), 1);
  });

  test('rows already shown keep their slots; the others take the free ones', () => {
    // Scrolled down by two rows: c and d stay where they are, e and f reuse a's and b's slots.
    assert.deepEqual(assignSlots(['a', 'b', 'c', 'd'], ['c', 'd', 'e', 'f']), [2, 3, 0, 1]);
    // An event arrived on top: every row keeps its slot, the new one takes the slot of the one
    // that fell off the end.
    assert.deepEqual(assignSlots([10, 9, 8, 7], [11, 10, 9, 8]), [3, 0, 1, 2]);
    // Empty slots first come, first served; slots left over show nothing.
    assert.deepEqual(assignSlots([undefined, 'x', undefined], ['y', 'x']), [0, 1]);
    assert.deepEqual(assignSlots(['p', 'q', 'r'], []), []);
    // A key twice (never in a view, but harmless): the second takes a free slot.
    assert.deepEqual(assignSlots(['a', 'b'], ['a', 'a']), [0, 1]);
  });
});
