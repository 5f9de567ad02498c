// The structural diff of two versions of an object, laid out as YAML lines (kubectl's layout:
// list items at their key's indent) each marked same, added, removed or changed:
//
//     spec:                       changed (something inside changed)
//       replicas: 5   was 3       changed scalar
//       selector: {…}             unchanged map, folded to one line
//     - image: web:1              removed (with every line of a removed value)
//     + image: web:2              added
//
// Maps are compared key by key (in the new version's order, removed keys where they were); lists
// item by item, matched by their "name" (or "type", as conditions are) when every item has a
// distinct one, whatever their order, else aligned on equal items; multi-line strings line by line. A scalar that
// changes type, or a value that becomes a map or a list, is the old value removed and the new
// added. Long strings show around where they differ. Pure: no DOM, no state.
import { isObject, jsonEqual, type JsonObject } from './json';
import { withoutMetadataFields } from './object_fields';
import { alignKeys, alignSequences, type AlignStep } from './sequence_align';
import { blockLines, clipText, elideCommon, isBlockString, isScalar, yamlKey, yamlScalar, type Scalar } from './yaml_text';

export type DiffMark = 'same' | 'added' | 'removed' | 'changed';

export interface DiffLine {
  readonly mark: DiffMark;
  // Spaces, and "- " on the first line of a list item.
  readonly indent: string;
  // "key: value", "key:", a list item's scalar, a line of a block string.
  readonly text: string;
  // A scalar changed in place: its old value (text has the new).
  readonly was?: string;
  // An unchanged map, list or block shown on this one line: the lines it holds.
  readonly folded?: number;
}

export interface DiffOptions {
  // Leaves out what every write changes: metadata.managedFields, resourceVersion, generation.
  readonly hideNoise: boolean;
  // Unchanged maps, lists and blocks on one line each; unchanged lines of a changed block cut
  // to a few around each change.
  readonly foldUnchanged: boolean;
}

export interface ObjectDiff {
  readonly lines: readonly DiffLine[];
  // Keys and list items added or removed, scalars changed (a change of type counts as changed).
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
}

export const NOISE_FIELDS: readonly string[] = ['managedFields', 'resourceVersion', 'generation'];
// A changed scalar longer than this is shown as removed and added lines instead of "was".
export const INLINE_CHANGE_MAX = 60;
// Longer texts are cut around where they differ, keeping this much on each side.
export const LONG_TEXT = 160;
export const TEXT_CONTEXT = 40;
// Unchanged lines kept around each change inside a changed block string.
export const BLOCK_CONTEXT = 3;
// Fields that name a list's items, in order of preference.
const IDENTITY_FIELDS = ['name', 'type'];

interface Context {
  readonly fold: boolean;
  added: number;
  removed: number;
  changed: number;
}

// The key of a map entry, or undefined for a list item's content (and for the root).
type Key = string | undefined;

function lead(key: Key): string {
  return key === undefined ? '' : `${yamlKey(key)}:`;
}

function withValue(key: Key, value: string): string {
  return key === undefined ? value : `${lead(key)} ${value}`;
}

function isContainer(value: unknown): value is JsonObject | readonly unknown[] {
  return isObject(value) || Array.isArray(value);
}

function isEmptyContainer(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
}

// Lines a list item's content gave (at indent + two spaces), the first one marked with the dash.
function asItem(indent: string, lines: DiffLine[], out: DiffLine[]): void {
  const inner = `${indent}  `;
  lines.forEach((line, i) => {
    out.push(i === 0 && line.indent.startsWith(inner) ? { ...line, indent: `${indent}- ${line.indent.slice(inner.length)}` } : line);
  });
}

// A value written whole, every line with the same mark.
function emitValue(key: Key, value: unknown, indent: string, mark: DiffMark, out: DiffLine[]): void {
  if (isBlockString(value)) {
    const block = blockLines(value);
    out.push({ mark, indent, text: withValue(key, block.indicator) });
    const inner = key === undefined ? indent : `${indent}  `;
    for (const line of block.lines) {
      out.push({ mark, indent: inner, text: line });
    }
  } else if (isScalar(value)) {
    const text = yamlScalar(value);
    out.push({ mark, indent, text: withValue(key, mark === 'same' ? clipText(text, LONG_TEXT) : text) });
  } else if (isEmptyContainer(value) || !isContainer(value)) {
    out.push({ mark, indent, text: withValue(key, Array.isArray(value) ? '[]' : '{}') });
  } else if (Array.isArray(value)) {
    if (key !== undefined) {
      out.push({ mark, indent, text: lead(key) });
    }
    for (const item of value) {
      const lines: DiffLine[] = [];
      emitValue(undefined, item, `${indent}  `, mark, lines);
      asItem(indent, lines, out);
    }
  } else {
    const inner = key === undefined ? indent : `${indent}  `;
    if (key !== undefined) {
      out.push({ mark, indent, text: lead(key) });
    }
    for (const [k, v] of Object.entries(value)) {
      emitValue(k, v, inner, mark, out);
    }
  }
}

// How a folded unchanged value reads: "spec: {…}", "ports: […]", "- {name: web, …}" for a
// list item with a name.
function foldedText(key: Key, value: unknown): string {
  if (isBlockString(value)) {
    return withValue(key, `${blockLines(value).indicator} …`);
  }
  if (Array.isArray(value)) {
    return withValue(key, '[…]');
  }
  const id = key === undefined ? IDENTITY_FIELDS.find((f) => isObject(value) && typeof value[f] === 'string') : undefined;
  const name = id !== undefined && isObject(value) ? value[id] : undefined;
  return withValue(key, typeof name === 'string' ? `{${id}: ${yamlScalar(name)}, …}` : '{…}');
}

// An unchanged value: whole, or folded to one line when it spans several.
function emitSame(key: Key, value: unknown, indent: string, context: Context, out: DiffLine[]): void {
  const lines: DiffLine[] = [];
  emitValue(key, value, indent, 'same', lines);
  if (context.fold && lines.length > 1) {
    out.push({ mark: 'same', indent, text: foldedText(key, value), folded: lines.length });
  } else {
    out.push(...lines);
  }
}

function diffValue(key: Key, before: unknown, after: unknown, indent: string, context: Context, out: DiffLine[]): void {
  if (jsonEqual(before, after)) {
    emitSame(key, after, indent, context, out);
  } else if (isObject(before) && isObject(after)) {
    if (key !== undefined) {
      out.push({ mark: 'changed', indent, text: lead(key) });
    }
    diffMaps(before, after, key === undefined ? indent : `${indent}  `, context, out);
  } else if (Array.isArray(before) && Array.isArray(after)) {
    if (key !== undefined) {
      out.push({ mark: 'changed', indent, text: lead(key) });
    }
    diffLists(before, after, indent, context, out);
  } else if (typeof before === 'string' && typeof after === 'string' && (isBlockString(before) || isBlockString(after))) {
    diffBlocks(key, before, after, indent, context, out);
  } else if (isScalar(before) && isScalar(after)) {
    diffScalars(key, before, after, indent, context, out);
  } else {
    // A change of shape: a scalar becomes a map, a map a list...
    context.changed += 1;
    emitValue(key, before, indent, 'removed', out);
    emitValue(key, after, indent, 'added', out);
  }
}

function diffScalars(key: Key, before: Scalar, after: Scalar, indent: string, context: Context, out: DiffLine[]): void {
  context.changed += 1;
  const was = yamlScalar(before);
  const now = yamlScalar(after);
  if (was.length <= INLINE_CHANGE_MAX && now.length <= INLINE_CHANGE_MAX) {
    out.push({ mark: 'changed', indent, text: withValue(key, now), was });
    return;
  }
  const [old, current] = elideCommon(was, now, LONG_TEXT, TEXT_CONTEXT);
  out.push({ mark: 'removed', indent, text: withValue(key, old) });
  out.push({ mark: 'added', indent, text: withValue(key, current) });
}

// Two strings, one of them multi-line: the blocks line by line, unchanged runs cut when folding.
function diffBlocks(key: Key, before: string, after: string, indent: string, context: Context, out: DiffLine[]): void {
  context.changed += 1;
  const old = blockLines(before);
  const now = blockLines(after);
  const indicator = old.indicator === now.indicator ? now.indicator : `${now.indicator}  (was ${old.indicator})`;
  out.push({ mark: 'changed', indent, text: withValue(key, indicator) });
  const inner = key === undefined ? indent : `${indent}  `;
  const steps = alignSequences(old.lines, now.lines, (a, b) => a === b);
  const lines: DiffLine[] = steps.map((step) =>
    step.op === 'same'
      ? { mark: 'same', indent: inner, text: now.lines[step.after] ?? '' }
      : step.op === 'removed'
        ? { mark: 'removed', indent: inner, text: old.lines[step.before] ?? '' }
        : { mark: 'added', indent: inner, text: now.lines[step.after] ?? '' },
  );
  out.push(...(context.fold ? foldRuns(lines, inner) : lines));
}

// Runs of unchanged lines cut to BLOCK_CONTEXT on each side of a change, the rest one folded line.
function foldRuns(lines: DiffLine[], indent: string): DiffLine[] {
  const out: DiffLine[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]?.mark !== 'same') {
      out.push(lines[i] as DiffLine);
      i += 1;
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end]?.mark === 'same') {
      end += 1;
    }
    const keepHead = i === 0 ? 0 : BLOCK_CONTEXT;
    const keepTail = end === lines.length ? 0 : BLOCK_CONTEXT;
    if (end - i > keepHead + keepTail + 1) {
      out.push(...lines.slice(i, i + keepHead));
      out.push({ mark: 'same', indent, text: '…', folded: end - i - keepHead - keepTail });
      out.push(...lines.slice(end - keepTail, end));
    } else {
      out.push(...lines.slice(i, end));
    }
    i = end;
  }
  return out;
}

function diffMaps(before: JsonObject, after: JsonObject, indent: string, context: Context, out: DiffLine[]): void {
  const beforeKeys = Object.keys(before);
  const afterKeys = Object.keys(after);
  for (const step of alignKeys(beforeKeys, afterKeys)) {
    if (step.op === 'same') {
      const key = afterKeys[step.after] as string;
      diffValue(key, before[key], after[key], indent, context, out);
    } else if (step.op === 'removed') {
      const key = beforeKeys[step.before] as string;
      context.removed += 1;
      emitValue(key, before[key], indent, 'removed', out);
    } else {
      const key = afterKeys[step.after] as string;
      context.added += 1;
      emitValue(key, after[key], indent, 'added', out);
    }
  }
}

// What identifies the items of both lists: a field every item has, distinct within each list
// (keyed: matched whatever their order), else the items' values themselves (aligned in order).
function identities(before: readonly unknown[], after: readonly unknown[]): { keyed: boolean; before: string[]; after: string[] } {
  for (const f of IDENTITY_FIELDS) {
    const ids = (list: readonly unknown[]): string[] | undefined => {
      const out = list.map((item) => (isObject(item) && typeof item[f] === 'string' ? item[f] : undefined));
      const named = out.filter((id): id is string => id !== undefined);
      return named.length === list.length && new Set(named).size === named.length ? named : undefined;
    };
    const a = ids(before);
    const b = ids(after);
    if (a && b && (a.length > 0 || b.length > 0)) {
      return { keyed: true, before: a, after: b };
    }
  }
  return { keyed: false, before: before.map((item) => JSON.stringify(item)), after: after.map((item) => JSON.stringify(item)) };
}

function diffLists(before: readonly unknown[], after: readonly unknown[], indent: string, context: Context, out: DiffLine[]): void {
  const ids = identities(before, after);
  const steps = ids.keyed ? alignKeys(ids.before, ids.after) : alignSequences(ids.before, ids.after, (a, b) => a === b);
  const item = (emit: (inner: string, lines: DiffLine[]) => void): void => {
    const lines: DiffLine[] = [];
    emit(`${indent}  `, lines);
    asItem(indent, lines, out);
  };
  let i = 0;
  while (i < steps.length) {
    const step = steps[i] as AlignStep;
    if (step.op === 'same') {
      item((inner, lines) => diffValue(undefined, before[step.before], after[step.after], inner, context, lines));
      i += 1;
      continue;
    }
    // A run of removals and additions between matched items: unless the items are named, items
    // of the same shape in the same place are one item changed; the rest removed or added.
    const removed: number[] = [];
    const added: number[] = [];
    for (; i < steps.length && steps[i]?.op !== 'same'; i += 1) {
      const s = steps[i] as AlignStep;
      if (s.op === 'removed') {
        removed.push(s.before);
      } else if (s.op === 'added') {
        added.push(s.after);
      }
    }
    const paired = ids.keyed ? 0 : Math.min(removed.length, added.length);
    const gone: unknown[] = [];
    const come: unknown[] = [];
    removed.forEach((b, k) => {
      const a = added[k];
      if (k < paired && a !== undefined && sameShape(before[b], after[a])) {
        item((inner, lines) => diffValue(undefined, before[b], after[a], inner, context, lines));
      } else {
        gone.push(before[b]);
        if (k < paired && a !== undefined) {
          come.push(after[a]);
        }
      }
    });
    come.push(...added.slice(paired).map((a) => after[a]));
    for (const value of gone) {
      context.removed += 1;
      item((inner, lines) => emitValue(undefined, value, inner, 'removed', lines));
    }
    for (const value of come) {
      context.added += 1;
      item((inner, lines) => emitValue(undefined, value, inner, 'added', lines));
    }
  }
}

function sameShape(a: unknown, b: unknown): boolean {
  return (isObject(a) && isObject(b)) || (Array.isArray(a) && Array.isArray(b));
}

// The diff of two versions of an object (or of any two JSON values).
export function diffObjects(before: unknown, after: unknown, options: DiffOptions): ObjectDiff {
  const shownBefore = options.hideNoise ? withoutMetadataFields(before, NOISE_FIELDS) : before;
  const shownAfter = options.hideNoise ? withoutMetadataFields(after, NOISE_FIELDS) : after;
  const context: Context = { fold: options.foldUnchanged, added: 0, removed: 0, changed: 0 };
  const lines: DiffLine[] = [];
  if (isObject(shownBefore) && isObject(shownAfter)) {
    // The top level is never folded: its unchanged fields fold one by one.
    diffMaps(shownBefore, shownAfter, '', context, lines);
  } else {
    diffValue(undefined, shownBefore, shownAfter, '', context, lines);
  }
  return { lines, added: context.added, removed: context.removed, changed: context.changed };
}

// The same two values: nothing to show.
export function isUnchanged(diff: ObjectDiff): boolean {
  return diff.added === 0 && diff.removed === 0 && diff.changed === 0;
}
