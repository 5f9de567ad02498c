// Fields of an object's metadata left out of a view: managedFields in the YAML (unless asked
// for), and the fields every write changes (resourceVersion, generation) in a diff.
import { isObject } from './json';

// The object without these metadata fields; the object itself when it has none of them.
export function withoutMetadataFields(object: unknown, names: readonly string[]): unknown {
  if (!isObject(object)) {
    return object;
  }
  const metadata = object['metadata'];
  if (!isObject(metadata) || !names.some((name) => name in metadata)) {
    return object;
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!names.includes(key)) {
      rest[key] = value;
    }
  }
  return { ...object, metadata: rest };
}
