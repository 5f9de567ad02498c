// An object as YAML, laid out as kubectl -o yaml does (sequences not indented under their key,
// long strings not folded), managedFields left out unless asked for.
import { stringify } from 'yaml';
import { isObject } from './json';

export interface YamlOptions {
  readonly showManagedFields: boolean;
}

function withoutManagedFields(object: unknown): unknown {
  if (!isObject(object)) {
    return object;
  }
  const metadata = object['metadata'];
  if (!isObject(metadata) || !('managedFields' in metadata)) {
    return object;
  }
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}

export function objectYaml(object: unknown, options: YamlOptions): string {
  const shown = options.showManagedFields ? object : withoutManagedFields(object);
  return stringify(shown, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}
