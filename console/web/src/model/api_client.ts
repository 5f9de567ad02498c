// Requests to the Kubernetes API over the injected Http: a non-2xx response becomes an ApiError
// in the server's words, a body that is not JSON an ApiError of kind 'decode'.
import type { CancelToken } from './cancel';
import { ApiError, errorFromResponse } from './errors';
import { ACCEPT_JSON, type Http, type HttpRequest, type HttpResponse } from './http';
import { parseJson } from './json';

export interface GetOptions {
  readonly accept?: string;
  readonly cancel?: CancelToken;
}

export class ApiClient {
  constructor(private readonly http: Http) {}

  // The response of a GET, once its status is 2xx; its body is left to read.
  async open(path: string, options: GetOptions = {}): Promise<HttpResponse> {
    const response = await this.http({
      method: 'GET',
      path,
      accept: options.accept ?? ACCEPT_JSON,
      ...(options.cancel ? { cancel: options.cancel } : {}),
    });
    if (response.status < 200 || response.status > 299) {
      throw errorFromResponse(response.status, await response.text());
    }
    return response;
  }

  // The JSON body of a GET.
  async getJson(path: string, options: GetOptions = {}): Promise<unknown> {
    const response = await this.open(path, options);
    const text = await response.text();
    const value = parseJson(text);
    if (value === undefined) {
      throw new ApiError('decode', `${path}: the response is not JSON`);
    }
    return value;
  }

  // A request that changes something: the JSON body of its 2xx response (an object, or a
  // Status for a delete).
  async send(request: HttpRequest): Promise<unknown> {
    const response = await this.http(request);
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw errorFromResponse(response.status, text);
    }
    const value = parseJson(text);
    if (value === undefined) {
      throw new ApiError('decode', `${request.method} ${request.path.split('?')[0] ?? ''}: the response is not JSON`);
    }
    return value;
  }
}
