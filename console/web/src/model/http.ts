// What the model needs of HTTP: requests to absolute paths on the page's own origin. The
// browser's adapter (src/net/) implements it with fetch; tests fake it.
import type { CancelToken } from './cancel';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  // Absolute path with its query: "/api/v1/namespaces?limit=500".
  readonly path: string;
  readonly accept: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly cancel?: CancelToken;
}

export interface HttpResponse {
  readonly status: number;
  // The whole body as text.
  text(): Promise<string>;
  // The body as decoded text chunks, in order, as they arrive.
  chunks(): AsyncIterable<string>;
}

// Rejects with an ApiError of kind 'network' when no response arrives, 'cancelled' on cancel.
export type Http = (request: HttpRequest) => Promise<HttpResponse>;

export const ACCEPT_JSON = 'application/json';
export const ACCEPT_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
