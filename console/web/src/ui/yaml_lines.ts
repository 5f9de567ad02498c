// YAML text split for colouring: each line's indent (with any "- "), key, and value, and what
// kind of scalar the value is. Pure; the renderer turns the parts into spans.

export type ValueKind = 'string' | 'number' | 'literal' | 'none';

export interface YamlLine {
  readonly indent: string;
  // The key with its colon ("name:"); "" for a line that is not "key: value".
  readonly key: string;
  readonly value: string;
  readonly kind: ValueKind;
}

const KEY_LINE = /^(\s*(?:- )*)((?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#-][^:]*?|-[^\s:][^:]*?):)(\s.*)?$/;
const ITEM_LINE = /^(\s*(?:- )+)(.*)$/;

function kindOf(value: string): ValueKind {
  const text = value.trim();
  if (text === '' || text === '|' || text === '>' || text === '|-' || text === '>-') {
    return 'none';
  }
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)) {
    return 'number';
  }
  if (text === 'true' || text === 'false' || text === 'null' || text === '{}' || text === '[]') {
    return 'literal';
  }
  return 'string';
}

export function splitYamlLine(line: string): YamlLine {
  const keyed = KEY_LINE.exec(line);
  if (keyed) {
    const value = keyed[3] ?? '';
    return { indent: keyed[1] ?? '', key: keyed[2] ?? '', value, kind: kindOf(value) };
  }
  const item = ITEM_LINE.exec(line);
  if (item) {
    const value = item[2] ?? '';
    return { indent: item[1] ?? '', key: '', value, kind: kindOf(value) };
  }
  return { indent: '', key: '', value: line, kind: 'string' };
}
