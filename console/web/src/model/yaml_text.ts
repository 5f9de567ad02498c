// Keys and scalars as YAML writes them, one line each, for views that lay out JSON themselves
// (the diff of two versions): plain when YAML would read the text back as the same string,
// double-quoted otherwise; multi-line strings as literal blocks. And the elision of long texts
// around the part that differs.

export type Scalar = null | boolean | number | string;

export function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string';
}

// Words YAML reads as something other than a string (1.1 and 1.2 both, to be safe).
const SPECIAL_WORD = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N)$/;
const NUMBER_LIKE = /^[-+]?(?:\.?\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;
// A first character that starts YAML syntax, or a sequence inside that does.
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/;
const INSIDE_SYNTAX = /: |:$| #|[\u0000-\u001f\u007f\u2028\u2029\ufeff]/;

function plainSafe(text: string): boolean {
  return (
    text !== '' &&
    !INDICATOR_START.test(text) &&
    !/\s$/.test(text) &&
    !INSIDE_SYNTAX.test(text) &&
    !SPECIAL_WORD.test(text) &&
    !NUMBER_LIKE.test(text)
  );
}

// A map key: plain ("app.kubernetes.io/name") or quoted ("a: b" -> "\"a: b\"").
export function yamlKey(key: string): string {
  return plainSafe(key) ? key : JSON.stringify(key);
}

// A scalar on one line: null, true, 3, web, "3", "", "a\nb" (a multi-line string quoted; see
// blockLines for its block form).
export function yamlScalar(value: Scalar): string {
  if (typeof value === 'string') {
    return plainSafe(value) ? value : JSON.stringify(value);
  }
  return value === null ? 'null' : String(value);
}

// A string YAML writes as a literal block: one with a line break in it (not just at its end).
export function isBlockString(value: unknown): value is string {
  if (typeof value !== 'string') {
    return false;
  }
  const nl = value.indexOf('\n');
  return nl >= 0 && nl < value.length - 1;
}

// A literal block: its indicator ("|" when the text ends with a line break, "|-" when not) and
// its lines.
export function blockLines(text: string): { readonly indicator: string; readonly lines: string[] } {
  const trailing = text.endsWith('\n');
  const body = trailing ? text.slice(0, -1) : text;
  return { indicator: trailing ? '|' : '|-', lines: body.split('\n') };
}

// A text cut to max characters with an ellipsis.
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(max - 1, 0))}…`;
}

// Two long texts shown around where they differ: the common start and end cut to `context`
// characters each, marked by an ellipsis. Texts both within `max` come back whole.
export function elideCommon(a: string, b: string, max: number, context: number): [string, string] {
  if (a.length <= max && b.length <= max) {
    return [a, b];
  }
  let start = 0;
  const shorter = Math.min(a.length, b.length);
  while (start < shorter && a[start] === b[start]) {
    start += 1;
  }
  let end = 0;
  while (end < shorter - start && a[a.length - 1 - end] === b[b.length - 1 - end]) {
    end += 1;
  }
  const cut = (text: string): string => {
    const from = Math.max(start - context, 0);
    const to = Math.min(text.length - end + context, text.length);
    return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
  };
  return [cut(a), cut(b)];
}
