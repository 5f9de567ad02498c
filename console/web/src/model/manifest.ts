// The text of the YAML editor: an object turned into the YAML it starts with (the fields the
// server sets left out), and YAML read back into an object, its problems with line numbers.
import { parseDocument, stringify } from 'yaml';
import { field, isObject, stringField, type JsonObject } from './json';

// Metadata the server sets: sending them back in an apply or a create is at best ignored
// (managedFields is refused in an apply). resourceVersion is put back by a replace.
const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
];

function withoutKeys(value: unknown, keys: readonly string[]): JsonObject {
  const rest: Record<string, unknown> = {};
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (!keys.includes(key)) {
        rest[key] = item;
      }
    }
  }
  return rest;
}

// The object as the editor starts with it: without status (written through its own subresource,
// so an apply of it would change nothing) and without the metadata the server sets.
export function editableObject(object: unknown): JsonObject {
  const rest = withoutKeys(object, ['status']);
  return isObject(rest['metadata']) ? { ...rest, metadata: withoutKeys(rest['metadata'], SERVER_METADATA) } : rest;
}

// kubectl apply's record of the configuration it last applied: the original's, name included.
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

// A copy to create under another name: editable, and without what belongs to the original (its
// owners, kubectl apply's record of it, a Service's cluster IPs).
export function duplicateObject(object: unknown, name: string): JsonObject {
  const copy = editableObject(object);
  const annotations = withoutKeys(field(copy['metadata'], 'annotations'), [LAST_APPLIED]);
  const metadata = withoutKeys(copy['metadata'], ['ownerReferences', ...(Object.keys(annotations).length > 0 ? [] : ['annotations'])]);
  const spec = copy['spec'];
  const ownSpec = stringField(copy, 'kind') === 'Service' && isObject(spec) ? { spec: withoutKeys(spec, ['clusterIP', 'clusterIPs']) } : {};
  return { ...copy, ...ownSpec, metadata: { ...metadata, ...('annotations' in metadata ? { annotations } : {}), name } };
}

// YAML as the detail pane lays it out (kubectl's layout).
export function manifestYaml(object: unknown): string {
  return stringify(object, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}

export interface ManifestProblem {
  // 1-based; 0 when the problem is not at a place in the text.
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface Manifest {
  readonly object: JsonObject;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

export type ManifestResult = { readonly manifest: Manifest } | { readonly problems: readonly ManifestProblem[] };

// The library's message without the excerpt it appends (the editor shows the text) nor the place
// (given apart).
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

// The editor's text as an object: one YAML document, a map with apiVersion, kind and
// metadata.name (or generateName when creating).
export function parseManifest(text: string, options: { allowGenerateName?: boolean } = {}): ManifestResult {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      problems: document.errors.map((error) => ({
        line: error.linePos?.[0].line ?? 0,
        column: error.linePos?.[0].col ?? 0,
        message: firstLine(error.message),
      })),
    };
  }
  const object: unknown = document.toJS({ maxAliasCount: 100 });
  if (!isObject(object)) {
    return { problems: [{ line: 1, column: 1, message: 'The YAML is not a map of fields (an object).' }] };
  }
  const lineOf = (key: string): number => {
    const index = text.search(new RegExp(`^${key}:`, 'm'));
    return index < 0 ? 0 : text.slice(0, index).split('\n').length;
  };
  const problems: ManifestProblem[] = [];
  const apiVersion = stringField(object, 'apiVersion') ?? '';
  const kind = stringField(object, 'kind') ?? '';
  const metadata = field(object, 'metadata');
  const name = stringField(metadata, 'name') ?? '';
  const generateName = stringField(metadata, 'generateName') ?? '';
  if (apiVersion === '') {
    problems.push({ line: lineOf('apiVersion'), column: 1, message: 'apiVersion is missing (a string such as "v1" or "apps/v1").' });
  }
  if (kind === '') {
    problems.push({ line: lineOf('kind'), column: 1, message: 'kind is missing (a string such as "ConfigMap").' });
  }
  if (name === '' && !(options.allowGenerateName === true && generateName !== '')) {
    problems.push({ line: lineOf('metadata'), column: 1, message: 'metadata.name is missing.' });
  }
  if (problems.length > 0) {
    return { problems };
  }
  return { manifest: { object, apiVersion, kind, name, namespace: stringField(metadata, 'namespace') ?? '' } };
}

// "line 3, column 5: message", or the message alone when it has no place.
export function describeProblem(problem: ManifestProblem): string {
  return problem.line > 0 ? `line ${problem.line}, column ${problem.column}: ${problem.message}` : problem.message;
}
