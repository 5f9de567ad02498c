// Errors of requests, in the server's words: a failed request carries the Status object's
// message, reason and code, and its field causes; a network failure or an unreadable body says
// so. The UI shows them inline.
import { arrayField, isObject, numberField, parseJson, stringField } from './json';

export type ApiErrorKind = 'status' | 'network' | 'decode' | 'cancelled';

export interface StatusCause {
  readonly field: string;
  readonly reason: string;
  readonly message: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  // The HTTP status, or the Status object's code; 0 when there is none.
  readonly code: number;
  // The Status object's reason ("NotFound", "Expired"); empty when there is none.
  readonly reason: string;
  readonly causes: readonly StatusCause[];

  constructor(
    kind: ApiErrorKind,
    message: string,
    details: { code?: number; reason?: string; causes?: readonly StatusCause[] } = {},
  ) {
    super(message);
    this.kind = kind;
    this.code = details.code ?? 0;
    this.reason = details.reason ?? '';
    this.causes = details.causes ?? [];
  }

  // One line for the UI: the message, then the reason and code when there are.
  describe(): string {
    const tags = [this.reason, this.code > 0 ? String(this.code) : ''].filter((s) => s !== '');
    return tags.length > 0 ? `${this.message} (${tags.join(', ')})` : this.message;
  }
}

// The longest body quoted in an error that is not a Status.
const MAX_QUOTED = 300;

function causesOf(status: unknown): StatusCause[] {
  const details = isObject(status) ? status['details'] : undefined;
  return (arrayField(details, 'causes') ?? []).filter(isObject).map((cause) => ({
    field: stringField(cause, 'field') ?? '',
    reason: stringField(cause, 'reason') ?? '',
    message: stringField(cause, 'message') ?? '',
  }));
}

// An ApiError from a Status object (a failed response's body or a watch ERROR event's object);
// undefined when value is not a Status.
export function errorFromStatus(value: unknown, httpStatus = 0): ApiError | undefined {
  if (stringField(value, 'kind') !== 'Status') {
    return undefined;
  }
  const code = numberField(value, 'code') ?? httpStatus;
  const reason = stringField(value, 'reason') ?? '';
  const message = stringField(value, 'message') ?? (reason !== '' ? reason : `request failed with ${code}`);
  return new ApiError('status', message, { code, reason, causes: causesOf(value) });
}

// The error of a response with a non-2xx status and this body.
export function errorFromResponse(httpStatus: number, body: string): ApiError {
  const status = errorFromStatus(parseJson(body), httpStatus);
  if (status) {
    return status;
  }
  const text = body.trim().slice(0, MAX_QUOTED);
  const message = text !== '' ? `HTTP ${httpStatus}: ${text}` : `HTTP ${httpStatus}`;
  return new ApiError('status', message, { code: httpStatus });
}

// Any thrown value as an ApiError (a bug or a failure outside the request reads as 'network').
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) {
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError('network', message);
}

export function isCancelled(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'cancelled';
}
