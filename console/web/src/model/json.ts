// Narrowing of JSON read from the server. The server is not trusted: every field is checked
// for its type before use, and a missing or mistyped field reads as absent.

export type JsonObject = { readonly [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

export function stringField(value: unknown, key: string): string | undefined {
  const v = field(value, key);
  return typeof v === 'string' ? v : undefined;
}

export function numberField(value: unknown, key: string): number | undefined {
  const v = field(value, key);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function booleanField(value: unknown, key: string): boolean | undefined {
  const v = field(value, key);
  return typeof v === 'boolean' ? v : undefined;
}

export function arrayField(value: unknown, key: string): readonly unknown[] | undefined {
  const v = field(value, key);
  return Array.isArray(v) ? v : undefined;
}

// The strings of an array field; other elements are skipped.
export function stringsField(value: unknown, key: string): string[] {
  const list = arrayField(value, key) ?? [];
  return list.filter((item): item is string => typeof item === 'string');
}

// JSON.parse without throwing: undefined for text that is not JSON.
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// Deep equality of JSON values: maps equal whatever their key order, lists item by item.
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && jsonEqual(a[key], b[key]));
  }
  return false;
}
