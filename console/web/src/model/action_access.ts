// The console's actions as the access advice sees them: whether the tree's resources may be
// listed, and whether New, Edit (and its Apply, Replace), Duplicate, Create and Delete may be
// offered for what the console shows. Each answer is a Permission: allowed, or the refusal the
// server would give in its words. Unknown rules allow (the server decides).
import { FALLBACK_NAMESPACE, type Permission } from './access_advice';
import type { ConsoleState } from './console_state';
import type { ApiResourceInfo } from './resource_tree';

const ALLOWED: Permission = { allowed: true };

// Why the tree marks a resource: the user may not list it where it would be listed (a namespaced
// one in the namespace shown; with all namespaces shown, in all of them, or else in
// FALLBACK_NAMESPACE, where the console lists it instead).
export function listPermission(state: ConsoleState, resource: ApiResourceInfo): Permission {
  const namespace = resource.namespaced ? state.route.namespace : '';
  const everywhere = state.access.may('list', resource, namespace);
  if (everywhere.allowed || !resource.namespaced || namespace !== '') {
    return everywhere;
  }
  return state.access.may('list', resource, FALLBACK_NAMESPACE);
}

// New <Kind> in the header, and Create in the editor: a create in the namespace shown.
export function createPermission(state: ConsoleState): Permission {
  const editing = state.editor.state;
  const target = editing.mode === 'new' && editing.target ? { ...editing.target.ref, namespaced: editing.target.namespaced } : state.resource;
  return target ? state.access.may('create', target, state.route.namespace) : ALLOWED;
}

// A verb on the object open in the detail pane.
export function objectPermission(state: ConsoleState, verb: string): Permission {
  const target = state.detail.state.target;
  const info = state.resource;
  if (!target || !info) {
    return ALLOWED;
  }
  return state.access.may(verb, info, target.namespace, target.name);
}

// Edit (and Apply): a server-side apply is a patch; a user who may update and not patch can
// still Replace, so Edit is offered when either is allowed.
export function editPermission(state: ConsoleState): Permission {
  const patch = objectPermission(state, 'patch');
  return patch.allowed || objectPermission(state, 'update').allowed ? ALLOWED : patch;
}

// Duplicate: a create in the object's namespace.
export function duplicatePermission(state: ConsoleState): Permission {
  const target = state.detail.state.target;
  const info = state.resource;
  return target && info ? state.access.may('create', info, target.namespace) : ALLOWED;
}
