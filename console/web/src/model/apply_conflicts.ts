// The conflicts of a server-side apply refused with 409: each field another manager owns with
// another value, and that manager, read from the Status causes (reason FieldManagerConflict,
// message 'conflict with "kubectl" using apps/v1', field ".spec.replicas").
import type { ApiError } from './errors';

export interface ApplyConflict {
  // ".spec.replicas"; "" when the cause names none.
  readonly field: string;
  // "kubectl-client-side-apply"; "" when the message names none.
  readonly manager: string;
  // The cause's message, as the server wrote it.
  readonly message: string;
}

const MANAGER = /conflict with "((?:[^"\\]|\\.)*)"/;

export function applyConflicts(error: ApiError): ApplyConflict[] {
  if (error.code !== 409) {
    return [];
  }
  return error.causes
    .filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => ({ field: cause.field, manager: MANAGER.exec(cause.message)?.[1] ?? '', message: cause.message }));
}
