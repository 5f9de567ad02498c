// The requests that change objects, as kube-apiserver takes them: server-side apply (PATCH with
// an apply-patch+yaml body under a field manager, forced or not), create (POST to the
// collection), replace (PUT with the resourceVersion the object was read at), delete.
import { ACCEPT_JSON, type HttpRequest } from './http';
import { isObject, type JsonObject } from './json';
import { collectionPath, objectPath, type ResourceRef } from './resource_ref';

// The field manager the web console applies as.
export const FIELD_MANAGER = 'kube-sandbox-web';

export function applyRequest(ref: ResourceRef, namespace: string, name: string, yamlText: string, force: boolean): HttpRequest {
  const query = `?fieldManager=${encodeURIComponent(FIELD_MANAGER)}${force ? '&force=true' : ''}`;
  return {
    method: 'PATCH',
    path: `${objectPath(ref, namespace, name)}${query}`,
    accept: ACCEPT_JSON,
    contentType: 'application/apply-patch+yaml',
    body: yamlText,
  };
}

export function createRequest(ref: ResourceRef, namespace: string, object: JsonObject): HttpRequest {
  return {
    method: 'POST',
    path: `${collectionPath(ref, namespace)}?fieldManager=${encodeURIComponent(FIELD_MANAGER)}`,
    accept: ACCEPT_JSON,
    contentType: 'application/json',
    body: JSON.stringify(object),
  };
}

// A replace of the object read at resourceVersion: refused with 409 when it changed since.
export function replaceRequest(ref: ResourceRef, namespace: string, name: string, object: JsonObject, resourceVersion: string): HttpRequest {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  return {
    method: 'PUT',
    path: `${objectPath(ref, namespace, name)}?fieldManager=${encodeURIComponent(FIELD_MANAGER)}`,
    accept: ACCEPT_JSON,
    contentType: 'application/json',
    body: JSON.stringify({ ...object, metadata: { ...metadata, resourceVersion } }),
  };
}

export function deleteRequest(ref: ResourceRef, namespace: string, name: string): HttpRequest {
  return { method: 'DELETE', path: objectPath(ref, namespace, name), accept: ACCEPT_JSON };
}
