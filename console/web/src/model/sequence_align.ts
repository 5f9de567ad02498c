// The alignment of two sequences: which items of `before` and `after` are the same item (kept in
// order), which were removed and which added. A longest common subsequence, after the common
// head and tail are set aside; when the middle is too large for the table (more than maxCells
// pairs) it is reported as all removed then all added, which is correct if not minimal.
//
// Example: [a, b, c] -> [a, c, d] gives same a, removed b, same c, added d.

export type AlignStep =
  | { readonly op: 'same'; readonly before: number; readonly after: number }
  | { readonly op: 'removed'; readonly before: number }
  | { readonly op: 'added'; readonly after: number };

export const MAX_ALIGN_CELLS = 1_000_000;

export function alignSequences<T>(
  before: readonly T[],
  after: readonly T[],
  same: (a: T, b: T) => boolean,
  maxCells = MAX_ALIGN_CELLS,
): AlignStep[] {
  let head = 0;
  while (head < before.length && head < after.length && same(before[head] as T, after[head] as T)) {
    head += 1;
  }
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    same(before[before.length - 1 - tail] as T, after[after.length - 1 - tail] as T)
  ) {
    tail += 1;
  }
  const steps: AlignStep[] = [];
  for (let i = 0; i < head; i += 1) {
    steps.push({ op: 'same', before: i, after: i });
  }
  const n = before.length - head - tail;
  const m = after.length - head - tail;
  if (n > 0 && m > 0 && n * m <= maxCells) {
    middleByTable(before, after, head, n, m, same, steps);
  } else {
    for (let i = 0; i < n; i += 1) {
      steps.push({ op: 'removed', before: head + i });
    }
    for (let j = 0; j < m; j += 1) {
      steps.push({ op: 'added', after: head + j });
    }
  }
  for (let k = 0; k < tail; k += 1) {
    steps.push({ op: 'same', before: before.length - tail + k, after: after.length - tail + k });
  }
  return steps;
}

// The classic table: lengths[i][j] is the longest common subsequence of the middles' suffixes
// from i and j; walking it from the start gives the steps in order (removals before additions
// where both would do).
function middleByTable<T>(
  before: readonly T[],
  after: readonly T[],
  offset: number,
  n: number,
  m: number,
  same: (a: T, b: T) => boolean,
  steps: AlignStep[],
): void {
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i * width + j] = same(before[offset + i] as T, after[offset + j] as T)
        ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
        : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (same(before[offset + i] as T, after[offset + j] as T)) {
      steps.push({ op: 'same', before: offset + i, after: offset + j });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      steps.push({ op: 'removed', before: offset + i });
      i += 1;
    } else {
      steps.push({ op: 'added', after: offset + j });
      j += 1;
    }
  }
  for (; i < n; i += 1) {
    steps.push({ op: 'removed', before: offset + i });
  }
  for (; j < m; j += 1) {
    steps.push({ op: 'added', after: offset + j });
  }
}

// The alignment of two sequences of distinct keys (a map's keys, the names of a list's items):
// every key in both is the same item, whatever its place; the steps follow `after`'s order, each
// key only in `before` coming just before the first key that followed it there (or at the end).
//
// Examples: [a, b, c] -> [a, c, d] gives same a, removed b, same c, added d; [a, b, c] -> [c, a]
// gives removed b, same c, same a.
export function alignKeys(before: readonly string[], after: readonly string[]): AlignStep[] {
  const position = new Map(before.map((key, i) => [key, i]));
  const kept = new Set(after);
  const steps: AlignStep[] = [];
  let next = 0;
  const removedUpTo = (end: number): void => {
    for (; next < end; next += 1) {
      if (!kept.has(before[next] as string)) {
        steps.push({ op: 'removed', before: next });
      }
    }
  };
  after.forEach((key, j) => {
    const at = position.get(key);
    if (at === undefined) {
      steps.push({ op: 'added', after: j });
      return;
    }
    if (at >= next) {
      removedUpTo(at);
      next = at + 1;
    }
    steps.push({ op: 'same', before: at, after: j });
  });
  removedUpTo(before.length);
  return steps;
}
