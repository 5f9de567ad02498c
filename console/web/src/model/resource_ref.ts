// A resource as the API names it (group, version, plural resource), its key, and its URL paths.

export interface ResourceRef {
  // "" for the core group.
  readonly group: string;
  readonly version: string;
  // Plural: "deployments".
  readonly resource: string;
}

export const CORE_GROUP_NAME = 'core';

// The group as shown and as spelled in URLs: "core" for the core group.
export function groupDisplayName(group: string): string {
  return group === '' ? CORE_GROUP_NAME : group;
}

// "core/configmaps", "apps/deployments": the identity of a resource across versions.
export function resourceKey(ref: { readonly group: string; readonly resource: string }): string {
  return `${groupDisplayName(ref.group)}/${ref.resource}`;
}

export function sameResource(a: ResourceRef | undefined, b: ResourceRef | undefined): boolean {
  return a !== undefined && b !== undefined && a.group === b.group && a.version === b.version && a.resource === b.resource;
}

// "/api/v1" or "/apis/apps/v1".
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${encodeURIComponent(version)}` : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
}

// The collection: in one namespace when namespace is not empty, else across all namespaces (or
// cluster-scoped).
export function collectionPath(ref: ResourceRef, namespace: string): string {
  const ns = namespace === '' ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${groupVersionPath(ref.group, ref.version)}${ns}/${encodeURIComponent(ref.resource)}`;
}

// One object; namespace is empty for a cluster-scoped one.
export function objectPath(ref: ResourceRef, namespace: string, name: string): string {
  return `${collectionPath(ref, namespace)}/${encodeURIComponent(name)}`;
}
