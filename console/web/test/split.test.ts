import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clampShare,
  DETAIL_SHARE_DEFAULT,
  DETAIL_SHARE_MAX,
  DETAIL_SHARE_MIN,
  parseShare,
  separatorPosition,
  shareAfterDrag,
  shareAfterKey,
  SPLIT_STEP,
} from '../src/model/split';

describe('the split between table and detail', () => {
  test('a stored share is read back, kept within bounds; anything else is the default', () => {
    assert.equal(parseShare('42.5'), 42.5);
    assert.equal(parseShare('5'), DETAIL_SHARE_MIN);
    assert.equal(parseShare('95'), DETAIL_SHARE_MAX);
    for (const stored of [null, undefined, '', '  ', 'wide', 'NaN', 'Infinity']) {
      assert.equal(parseShare(stored), DETAIL_SHARE_DEFAULT, String(stored));
    }
    assert.equal(clampShare(DETAIL_SHARE_DEFAULT), DETAIL_SHARE_DEFAULT);
  });

  test('keys: Left widens the detail pane, Right narrows it, Home and End go to the ends', () => {
    assert.equal(shareAfterKey(36, 'ArrowLeft'), 36 + SPLIT_STEP);
    assert.equal(shareAfterKey(36, 'ArrowRight'), 36 - SPLIT_STEP);
    assert.equal(shareAfterKey(DETAIL_SHARE_MAX, 'ArrowLeft'), DETAIL_SHARE_MAX);
    assert.equal(shareAfterKey(DETAIL_SHARE_MIN, 'ArrowRight'), DETAIL_SHARE_MIN);
    assert.equal(shareAfterKey(36, 'Home'), DETAIL_SHARE_MAX);
    assert.equal(shareAfterKey(36, 'End'), DETAIL_SHARE_MIN);
    assert.equal(shareAfterKey(36, 'ArrowUp'), undefined);
    assert.equal(shareAfterKey(36, 'Enter'), undefined);
  });

  test('a drag moves the share by the part of the width dragged, within bounds', () => {
    assert.equal(shareAfterDrag(36, 1000, 800, 2000), 46);
    assert.equal(shareAfterDrag(36, 1000, 1100, 2000), 31);
    assert.equal(shareAfterDrag(36, 1000, 0, 2000), DETAIL_SHARE_MAX);
    assert.equal(shareAfterDrag(36, 1000, 2000, 2000), DETAIL_SHARE_MIN);
    assert.equal(shareAfterDrag(36, 1000, 500, 0), 36);
  });

  test('the separator\'s value is its position from the left', () => {
    assert.equal(separatorPosition(36), 64);
    assert.equal(separatorPosition(40.4), 60);
    assert.ok(separatorPosition(DETAIL_SHARE_MAX) < separatorPosition(DETAIL_SHARE_MIN));
  });
});
