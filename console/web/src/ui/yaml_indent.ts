// The indentation of a new line in the YAML editor (Enter), from the text before the cursor on
// the line: the line's own, one level deeper after a key that opens a block ("spec:"), and under
// a list item's content ("- name: a" continues at "name"). CodeMirror's YAML indentation guesses
// from a syntax tree that a half-typed line does not yet have, and often guessed wrong.

export const YAML_INDENT_UNIT = 2;

export function yamlIndentAfter(before: string): string {
  const own = /^ */.exec(before)?.[0] ?? '';
  const item = /^ *(?:- +)+/.exec(before);
  const base = item ? ' '.repeat(item[0].length) : own;
  const content = before.replace(/\s+#.*$/, '').trimEnd();
  const opensBlock = content.endsWith(':') || /:\s+[|>][+-]?\d*$/.test(content);
  return opensBlock ? base + ' '.repeat(YAML_INDENT_UNIT) : base;
}
