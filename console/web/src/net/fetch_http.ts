// The model's Http over the browser's fetch: same-origin credentials, the CSRF header on
// requests that change something, cancellation through an AbortController, and bodies read as
// text (streamed bodies through a TextDecoder in stream mode, so a character split across chunks
// is decoded whole).
import { ApiError } from '../model/errors';
import type { Http, HttpRequest, HttpResponse } from '../model/http';
import { csrfHeaders } from './csrf';

function failure(error: unknown, request: HttpRequest): ApiError {
  if (request.cancel?.cancelled) {
    return new ApiError('cancelled', 'cancelled');
  }
  const detail = error instanceof Error && error.message !== '' ? `: ${error.message}` : '';
  return new ApiError('network', `${request.method} ${request.path.split('?')[0] ?? ''} failed${detail} (is kube-sandbox serve still running?)`);
}

async function* decodeChunks(body: ReadableStream<Uint8Array>, request: HttpRequest): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  try {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        throw failure(error, request);
      }
      if (result.done) {
        const rest = decoder.decode();
        if (rest !== '') {
          yield rest;
        }
        return;
      }
      const text = decoder.decode(result.value, { stream: true });
      if (text !== '') {
        yield text;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

export const fetchHttp: Http = async (request) => {
  const controller = new AbortController();
  const off = request.cancel?.onCancel(() => controller.abort()) ?? ((): void => {});
  const headers: Record<string, string> = { Accept: request.accept, ...csrfHeaders(request.method, document.cookie, location.port) };
  if (request.contentType !== undefined) {
    headers['Content-Type'] = request.contentType;
  }
  let response: Response;
  try {
    response = await fetch(request.path, {
      method: request.method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      signal: controller.signal,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
  } catch (error) {
    off();
    throw failure(error, request);
  }
  const result: HttpResponse = {
    status: response.status,
    text: async () => {
      try {
        return await response.text();
      } catch (error) {
        throw failure(error, request);
      } finally {
        off();
      }
    },
    chunks: () => {
      const body = response.body;
      if (body === null) {
        off();
        return (async function* () {})();
      }
      return (async function* () {
        try {
          yield* decodeChunks(body, request);
        } finally {
          off();
        }
      })();
    },
  };
  return result;
};
