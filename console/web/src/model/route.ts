// The view as a URL fragment, so every view can be bookmarked, reloaded and reached with back
// and forward:
//
//   #/                                        nothing selected yet
//   #/r/<group>/<version>/<resource>          a resource; the core group is spelled "core"
//     ?ns=<namespace>                         one namespace (absent: all namespaces)
//     &obj=<name> | &obj=<namespace>/<name>   the object open in the detail pane; its namespace
//                                             is written only when it is not ns
//     &ev=<resourceVersion>                   with obj: the object's watch event at that
//                                             resourceVersion, from the events pane
//     &q=<text>                               the filter
//     &sort=<column> | &sort=-<column>        the sorted column, ascending or descending (-)
//
// e.g. #/r/apps/v1/deployments?ns=default&sort=-Age, #/r/core/v1/configmaps?ns=kube-system&obj=x,
// #/r/core/v1/configmaps?ns=default&obj=x&ev=4242.
// Values are percent-encoded; ns is kept when a cluster-scoped resource is shown, so the
// namespace chosen survives a visit to nodes.
import { CORE_GROUP_NAME, type ResourceRef } from './resource_ref';
import type { SortSpec } from './table_store';

export interface Route {
  readonly resource?: ResourceRef;
  // "" for all namespaces.
  readonly namespace: string;
  // The open object as written in the URL: "name" or "namespace/name" (see objectOf).
  readonly object?: string;
  // With object: the resourceVersion of the object's watch event open in the detail pane.
  readonly event?: string;
  readonly filter: string;
  readonly sort?: SortSpec;
}

export const HOME: Route = { namespace: '', filter: '' };

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function parseQuery(query: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    if (part === '') {
      continue;
    }
    const eq = part.indexOf('=');
    const key = decode(eq >= 0 ? part.slice(0, eq) : part);
    const value = decode(eq >= 0 ? part.slice(eq + 1) : '');
    if (key !== undefined && value !== undefined && !params.has(key)) {
      params.set(key, value);
    }
  }
  return params;
}

function parseResource(path: string): ResourceRef | undefined {
  const segments = path.split('/').map(decode);
  // "", "r", group, version, resource
  if (segments.length !== 5 || segments[0] !== '' || segments[1] !== 'r') {
    return undefined;
  }
  const [, , group, version, resource] = segments;
  if (!group || !version || !resource) {
    return undefined;
  }
  return { group: group === CORE_GROUP_NAME ? '' : group, version, resource };
}

function parseSort(text: string | undefined): SortSpec | undefined {
  if (text === undefined || text === '' || text === '-') {
    return undefined;
  }
  return text.startsWith('-') ? { column: text.slice(1), descending: true } : { column: text, descending: false };
}

// The route of a location.hash ("#/r/..." or "/r/..."); a hash that names no resource is HOME
// with what of its query is valid.
export function parseRoute(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = text.indexOf('?');
  const path = q >= 0 ? text.slice(0, q) : text;
  const params = parseQuery(q >= 0 ? text.slice(q + 1) : '');
  const resource = parseResource(path);
  const object = params.get('obj');
  const event = params.get('ev');
  const sort = parseSort(params.get('sort'));
  return {
    ...(resource ? { resource } : {}),
    namespace: params.get('ns') ?? '',
    ...(resource && object ? { object } : {}),
    ...(resource && object && event ? { event } : {}),
    filter: params.get('q') ?? '',
    ...(resource && sort ? { sort } : {}),
  };
}

function encode(text: string): string {
  return encodeURIComponent(text);
}

// The hash of a route, "#/..." (the inverse of parseRoute).
export function formatRoute(route: Route): string {
  const params: string[] = [];
  if (route.namespace !== '') {
    params.push(`ns=${encode(route.namespace)}`);
  }
  if (route.resource && route.object) {
    // "/" stays readable: names never hold one.
    params.push(`obj=${encode(route.object).replace(/%2F/g, '/')}`);
    if (route.event) {
      params.push(`ev=${encode(route.event)}`);
    }
  }
  if (route.filter !== '') {
    params.push(`q=${encode(route.filter)}`);
  }
  if (route.resource && route.sort) {
    params.push(`sort=${route.sort.descending ? '-' : ''}${encode(route.sort.column)}`);
  }
  const query = params.length > 0 ? `?${params.join('&')}` : '';
  if (!route.resource) {
    return `#/${query}`;
  }
  const { group, version, resource } = route.resource;
  const groupName = group === '' ? CORE_GROUP_NAME : group;
  return `#/r/${encode(groupName)}/${encode(version)}/${encode(resource)}${query}`;
}

// The obj parameter for an object of this namespace ("" when cluster-scoped) in a view of
// viewNamespace.
export function objectParam(namespace: string, name: string, viewNamespace: string): string {
  return namespace === '' || namespace === viewNamespace ? name : `${namespace}/${name}`;
}

// The object an obj parameter names, for a resource namespaced or not; undefined when it names
// none (a namespaced object with no namespace, here or in the view).
export function objectOf(
  param: string,
  namespaced: boolean,
  viewNamespace: string,
): { namespace: string; name: string } | undefined {
  const slash = param.indexOf('/');
  const name = slash >= 0 ? param.slice(slash + 1) : param;
  if (name === '' || name.includes('/')) {
    return undefined;
  }
  if (!namespaced) {
    return slash >= 0 ? undefined : { namespace: '', name };
  }
  const namespace = slash >= 0 ? param.slice(0, slash) : viewNamespace;
  return namespace === '' ? undefined : { namespace, name };
}
