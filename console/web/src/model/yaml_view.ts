// An object as YAML, laid out as kubectl -o yaml does (sequences not indented under their key,
// long strings not folded), managedFields left out unless asked for.
import { stringify } from 'yaml';
import { withoutMetadataFields } from './object_fields';

export interface YamlOptions {
  readonly showManagedFields: boolean;
}

export function objectYaml(object: unknown, options: YamlOptions): string {
  const shown = options.showManagedFields ? object : withoutMetadataFields(object, ['managedFields']);
  return stringify(shown, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}
