// The arithmetic of a virtualized list of fixed-height rows: which rows to put in the DOM for a
// scroll position, where each goes, and how to scroll to keep a row in sight or in place.

export interface Viewport {
  readonly rowHeight: number;
  // The height rows can show in (without sticky headers).
  readonly viewportHeight: number;
  readonly scrollTop: number;
  readonly total: number;
  // Rows rendered beyond each edge, so fast scrolling shows no gap.
  readonly overscan: number;
}

export interface VisibleRange {
  // Rows [first, last) are rendered.
  readonly first: number;
  readonly last: number;
  // The height of the whole list.
  readonly totalHeight: number;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

export function visibleRange(v: Viewport): VisibleRange {
  const rowHeight = Math.max(v.rowHeight, 1);
  const total = Math.max(Math.floor(v.total), 0);
  const top = Math.max(v.scrollTop, 0);
  const overscan = Math.max(Math.floor(v.overscan), 0);
  const firstVisible = Math.floor(top / rowHeight);
  const lastVisible = Math.ceil((top + Math.max(v.viewportHeight, 0)) / rowHeight);
  return {
    first: clamp(firstVisible - overscan, 0, total),
    last: clamp(lastVisible + overscan, 0, total),
    totalHeight: total * rowHeight,
  };
}

// The top of row index within the list.
export function rowOffset(index: number, rowHeight: number): number {
  return index * rowHeight;
}

// The scrollTop that brings row index fully into sight with the least movement (scrollTop itself
// when it already is).
export function scrollToReveal(index: number, rowHeight: number, viewportHeight: number, scrollTop: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) {
    return top;
  }
  if (bottom > scrollTop + viewportHeight) {
    return Math.max(bottom - viewportHeight, 0);
  }
  return scrollTop;
}

// The row at the top of the viewport and how far it is scrolled past: what to keep in place.
export interface Anchor {
  readonly index: number;
  readonly offset: number;
}

export function anchorAt(scrollTop: number, rowHeight: number): Anchor {
  const index = Math.floor(Math.max(scrollTop, 0) / rowHeight);
  return { index, offset: Math.max(scrollTop, 0) - index * rowHeight };
}

// A scrollTop within a list of total rows (whole pixels, from the top to the last row shown at
// the bottom), as the browser clamps one written.
export function clampScrollTop(top: number, total: number, rowHeight: number, viewportHeight: number): number {
  return Math.round(clamp(top, 0, Math.max(total * rowHeight - viewportHeight, 0)));
}

// The scrollTop that shows the anchored row, now at newIndex, where it was; clamped to the list.
export function scrollForAnchor(newIndex: number, anchor: Anchor, rowHeight: number, total: number, viewportHeight: number): number {
  return clampScrollTop(newIndex * rowHeight + anchor.offset, total, rowHeight, viewportHeight);
}

// The index PageUp or PageDown moves to: a viewport's worth of rows, at least one.
export function pageStep(rowHeight: number, viewportHeight: number): number {
  return Math.max(Math.floor(viewportHeight / rowHeight) - 1, 1);
}

// Which slot (a DOM row reused as the list scrolls) shows each wanted row, by key: a row already
// in a slot keeps it (nothing in it changes, so the browser lays out and paints nothing new for
// it), the others take the free slots in order. slotKeys holds what each slot shows (undefined:
// nothing); there are at least as many slots as wanted rows. Returns a slot index per wanted row.
export function assignSlots<K>(slotKeys: readonly (K | undefined)[], wanted: readonly K[]): number[] {
  const slotOf = new Map<K, number>();
  slotKeys.forEach((key, slot) => {
    if (key !== undefined) {
      slotOf.set(key, slot);
    }
  });
  const taken = slotKeys.map(() => false);
  const assigned = wanted.map((key) => {
    const slot = slotOf.get(key);
    if (slot === undefined || taken[slot]) {
      return -1;
    }
    taken[slot] = true;
    return slot;
  });
  let free = 0;
  return assigned.map((slot) => {
    if (slot >= 0) {
      return slot;
    }
    while (taken[free]) {
      free += 1;
    }
    taken[free] = true;
    return free;
  });
}
