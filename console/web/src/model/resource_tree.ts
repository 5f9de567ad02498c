// The tree of resources from legacy discovery: /api (APIVersions), /api/v1 and each group's
// preferred version /apis/G/V (APIResourceList), /apis (APIGroupList).
//
// Only resources a table can show are kept: no subresources ("pods/log"), only those with the
// "list" verb. Groups: core first, then by name; resources by kind, then by plural name.
import { ApiError } from './errors';
import { arrayField, booleanField, field, isObject, stringField, stringsField } from './json';
import { groupDisplayName, resourceKey, type ResourceRef } from './resource_ref';

export interface ApiResourceInfo extends ResourceRef {
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
}

export interface ApiGroupNode {
  // "" for core.
  readonly name: string;
  // "core" for core.
  readonly displayName: string;
  // The preferred version, the one listed.
  readonly version: string;
  readonly resources: readonly ApiResourceInfo[];
  // Why this group's discovery failed; its resources are then the last ones known.
  readonly error?: string;
}

export interface ResourceTree {
  readonly groups: readonly ApiGroupNode[];
}

export const EMPTY_TREE: ResourceTree = { groups: [] };

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

function decodeError(what: string): ApiError {
  return new ApiError('decode', `discovery: ${what}`);
}

// /api: the core group's versions; the preferred is v1 when served, else the first.
export function parseCoreVersions(value: unknown): GroupVersion {
  const versions = stringsField(value, 'versions');
  const version = versions.includes('v1') ? 'v1' : versions[0];
  if (version === undefined) {
    throw decodeError('/api lists no versions');
  }
  return { group: '', version };
}

// /apis: each group's preferred version (the first listed version when none is marked).
export function parseGroupList(value: unknown): GroupVersion[] {
  const groups = arrayField(value, 'groups');
  if (groups === undefined) {
    throw decodeError('/apis has no groups');
  }
  const out: GroupVersion[] = [];
  for (const group of groups) {
    const name = stringField(group, 'name');
    const preferred = stringField(field(group, 'preferredVersion'), 'version');
    const first = stringField(arrayField(group, 'versions')?.[0], 'version');
    const version = preferred ?? first;
    if (name !== undefined && name !== '' && version !== undefined) {
      out.push({ group: name, version });
    }
  }
  return out;
}

// An APIResourceList: the listable top-level resources, in no particular order.
export function parseResourceList(value: unknown, gv: GroupVersion): ApiResourceInfo[] {
  const resources = arrayField(value, 'resources');
  if (resources === undefined) {
    throw decodeError(`${groupDisplayName(gv.group)}/${gv.version} has no resources`);
  }
  const out: ApiResourceInfo[] = [];
  for (const item of resources) {
    if (!isObject(item)) {
      continue;
    }
    const name = stringField(item, 'name');
    const kind = stringField(item, 'kind');
    const verbs = stringsField(item, 'verbs');
    if (name === undefined || name === '' || name.includes('/') || kind === undefined || !verbs.includes('list')) {
      continue;
    }
    out.push({
      group: gv.group,
      version: gv.version,
      resource: name,
      kind,
      namespaced: booleanField(item, 'namespaced') ?? false,
      verbs,
      shortNames: stringsField(item, 'shortNames'),
    });
  }
  return out;
}

// One group's discovery: its resources, or why it failed.
export type GroupResult =
  | { readonly gv: GroupVersion; readonly resources: readonly ApiResourceInfo[] }
  | { readonly gv: GroupVersion; readonly error: string };

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareResources(a: ApiResourceInfo, b: ApiResourceInfo): number {
  return compareText(a.kind.toLowerCase(), b.kind.toLowerCase()) || compareText(a.resource, b.resource);
}

// The tree of these results. A failed group keeps its resources from previous (at their
// version then), flagged with the error; a group failing the first time is listed empty.
export function buildTree(results: readonly GroupResult[], previous: ResourceTree = EMPTY_TREE): ResourceTree {
  const byName = new Map<string, ApiGroupNode>();
  for (const result of results) {
    const name = result.gv.group;
    if (byName.has(name)) {
      continue;
    }
    if ('error' in result) {
      const before = previous.groups.find((g) => g.name === name);
      byName.set(name, {
        name,
        displayName: groupDisplayName(name),
        version: before?.version ?? result.gv.version,
        resources: before?.resources ?? [],
        error: result.error,
      });
      continue;
    }
    const resources = [...result.resources].sort(compareResources);
    byName.set(name, { name, displayName: groupDisplayName(name), version: result.gv.version, resources });
  }
  const groups = [...byName.values()].sort((a, b) => {
    if (a.name === '' || b.name === '') {
      return a.name === '' ? (b.name === '' ? 0 : -1) : 1;
    }
    return compareText(a.name, b.name);
  });
  return { groups };
}

// The resource of this group and plural name, at the version discovery lists.
export function findResource(tree: ResourceTree, group: string, resource: string): ApiResourceInfo | undefined {
  return tree.groups.find((g) => g.name === group)?.resources.find((r) => r.resource === resource);
}

// A text that changes when anything shown in the tree changes.
export function treeSignature(tree: ResourceTree): string {
  return tree.groups
    .map((g) => {
      const resources = g.resources.map((r) => `${resourceKey(r)}@${r.version}:${r.kind}:${r.namespaced ? 'n' : 'c'}`);
      return `${g.name}/${g.version}!${g.error ?? ''}[${resources.join(',')}]`;
    })
    .join('\n');
}
