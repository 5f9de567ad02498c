// The split between the table and the detail pane: the detail pane's share of the panes' width,
// in percent, kept within bounds. Keys move it a step, a drag by the distance dragged; it is
// stored as text. The separator's value (ARIA) is its position from the left: the rest.

export const DETAIL_SHARE_DEFAULT = 36;
export const DETAIL_SHARE_MIN = 20;
export const DETAIL_SHARE_MAX = 70;
export const SPLIT_STEP = 2;

export function clampShare(share: number): number {
  return Math.min(Math.max(share, DETAIL_SHARE_MIN), DETAIL_SHARE_MAX);
}

// A stored share; the default when there is none or it is not a number.
export function parseShare(stored: string | null | undefined): number {
  const share = stored === null || stored === undefined || stored.trim() === '' ? NaN : Number(stored);
  return Number.isFinite(share) ? clampShare(share) : DETAIL_SHARE_DEFAULT;
}

// The share after a key on the separator; undefined for other keys. Left moves the separator
// left (a wider detail pane), Home and End to the ends.
export function shareAfterKey(share: number, key: string): number | undefined {
  switch (key) {
    case 'ArrowLeft':
      return clampShare(share + SPLIT_STEP);
    case 'ArrowRight':
      return clampShare(share - SPLIT_STEP);
    case 'Home':
      return DETAIL_SHARE_MAX;
    case 'End':
      return DETAIL_SHARE_MIN;
    default:
      return undefined;
  }
}

// The share while dragging: the one at the start, plus the distance dragged to the left as a
// part of the panes' width.
export function shareAfterDrag(startShare: number, startX: number, x: number, width: number): number {
  if (!(width > 0)) {
    return startShare;
  }
  return clampShare(startShare + ((startX - x) / width) * 100);
}

// The separator's position from the left, in percent (aria-valuenow, -valuemin, -valuemax).
export function separatorPosition(share: number): number {
  return Math.round(100 - share);
}
