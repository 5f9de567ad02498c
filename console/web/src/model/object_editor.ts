// The detail pane's writes: the YAML editor (edit and apply server-side, force after a
// conflict, replace at the version read; or a new object from a template or a duplicate,
// created), and delete after a confirmation naming the finalizers that will hold the object.
// The editor's text lives in the UI's editor; each action is given it.
import type { ApiClient } from './api_client';
import { applyConflicts, type ApplyConflict } from './apply_conflicts';
import { asApiError } from './errors';
import { field, stringField, stringsField } from './json';
import { duplicateObject, editableObject, manifestYaml, parseManifest, type ManifestProblem } from './manifest';
import { objectTemplate } from './object_template';
import { sameResource, type ResourceRef } from './resource_ref';
import { Signal } from './signal';
import { applyRequest, createRequest, deleteRequest, FIELD_MANAGER, replaceRequest } from './write_requests';

export interface EditTarget {
  readonly ref: ResourceRef;
  readonly kind: string;
  readonly namespaced: boolean;
}

export type Outcome =
  | { readonly kind: 'done'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string; readonly conflicts: readonly ApplyConflict[] }
  | { readonly kind: 'invalid'; readonly problems: readonly ManifestProblem[] };

export interface EditorState {
  // 'edit': an existing object (apply, replace); 'new': one to create.
  readonly mode: 'closed' | 'edit' | 'new';
  readonly target?: EditTarget;
  // The text the editor starts with; a new one each time the editor is opened.
  readonly initialText: string;
  readonly generation: number;
  // The resourceVersion a replace sends: the object's when it was opened, then each write's.
  readonly resourceVersion: string;
  readonly busy: boolean;
  // The object written: "namespace/name" (or the name); "" before a new one is created.
  readonly subject: string;
  readonly outcome?: Outcome;
  // A delete asked for and not yet confirmed: what the confirmation says.
  readonly confirmDelete?: string;
}

// An object the editor created: where it now is.
export interface CreatedObject {
  readonly ref: ResourceRef;
  readonly namespace: string;
  readonly name: string;
}

const CLOSED: EditorState = { mode: 'closed', initialText: '', generation: 0, resourceVersion: '', busy: false, subject: '' };

function subjectOf(object: unknown): string {
  const metadata = field(object, 'metadata');
  const name = stringField(metadata, 'name') ?? '';
  const namespace = stringField(metadata, 'namespace') ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

// The finalizers that keep an object (as Terminating) until the controllers that own them
// remove them: metadata.finalizers, and a Namespace's spec.finalizers.
function finalizerHolds(kind: string, object: unknown): string[] {
  const finalizers = stringsField(field(object, 'metadata'), 'finalizers');
  const specFinalizers = kind === 'Namespace' ? stringsField(field(object, 'spec'), 'finalizers') : [];
  return [
    ...(finalizers.length > 0 ? [`metadata.finalizers: ${finalizers.join(', ')}`] : []),
    ...(specFinalizers.length > 0 ? [`spec.finalizers: ${specFinalizers.join(', ')}`] : []),
  ];
}

// What a delete confirmation says: the object, and the finalizers that will hold it.
export function deleteQuestion(kind: string, namespace: string, name: string, object: unknown): string {
  const where = namespace === '' ? name : `${namespace}/${name}`;
  const holds = finalizerHolds(kind, object);
  const after =
    holds.length === 0
      ? 'It has no finalizers: it goes at once.'
      : `It stays, Terminating, until these finalizers are removed: ${holds.join('; ')}.`;
  return `Delete ${kind} ${where}? ${after}`;
}

// The note on an object being deleted (its deletionTimestamp set): since when, and the
// finalizers holding it; undefined for an object that is not.
export function terminatingNote(kind: string, object: unknown): string | undefined {
  const since = stringField(field(object, 'metadata'), 'deletionTimestamp');
  if (since === undefined) {
    return undefined;
  }
  const holds = finalizerHolds(kind, object);
  return holds.length === 0 ? `Terminating since ${since}.` : `Terminating since ${since}, held by ${holds.join('; ')}.`;
}

function versionOf(object: unknown): string {
  return stringField(field(object, 'metadata'), 'resourceVersion') ?? '';
}

export class ObjectEditor {
  readonly changed = new Signal();
  // After each create: the object created, which the view then shows (the URL names it).
  readonly created = new Signal<CreatedObject>();
  private stateValue: EditorState = CLOSED;
  private generationCount = 0;

  constructor(private readonly client: ApiClient) {}

  get state(): EditorState {
    return this.stateValue;
  }

  private set(state: EditorState): void {
    this.stateValue = state;
    this.changed.emit();
  }

  private open(mode: 'edit' | 'new', target: EditTarget, object: unknown, resourceVersion: string): void {
    this.generationCount += 1;
    const subject = mode === 'edit' ? subjectOf(object) : '';
    this.set({ mode, target, initialText: manifestYaml(object), generation: this.generationCount, resourceVersion, busy: false, subject });
  }

  edit(target: EditTarget, object: unknown): void {
    this.open('edit', target, editableObject(object), versionOf(object));
  }

  create(target: EditTarget, namespace: string): void {
    const [group, version] = [target.ref.group, target.ref.version];
    this.open('new', target, objectTemplate({ group, version, kind: target.kind, namespaced: target.namespaced }, namespace), '');
  }

  duplicate(target: EditTarget, object: unknown): void {
    const name = stringField(field(object, 'metadata'), 'name') ?? 'object';
    this.open('new', target, duplicateObject(object, `${name}-copy`), '');
  }

  // Whether the editor is open on this object (to apply or replace it).
  isEditing(ref: ResourceRef, namespace: string, name: string): boolean {
    const { mode, target, subject } = this.stateValue;
    const where = namespace === '' ? name : `${namespace}/${name}`;
    return mode === 'edit' && target !== undefined && sameResource(target.ref, ref) && subject === where;
  }

  close(): void {
    if (this.stateValue !== CLOSED) {
      this.set(CLOSED);
    }
  }

  // Server-side apply of the text; force takes the fields other managers own.
  async apply(text: string, force: boolean): Promise<void> {
    await this.write(text, false, async (target, name, namespace) => {
      const object = await this.client.send(applyRequest(target.ref, namespace, name, text, force));
      return { object, message: `Applied${force ? ' (forced)' : ''} as ${FIELD_MANAGER}: resourceVersion ${versionOf(object)}.` };
    });
  }

  async replace(text: string): Promise<void> {
    const version = this.stateValue.resourceVersion;
    await this.write(text, false, async (target, name, namespace, manifest) => {
      const object = await this.client.send(replaceRequest(target.ref, namespace, name, manifest, version));
      return { object, message: `Replaced (was resourceVersion ${version}): resourceVersion ${versionOf(object)}.` };
    });
  }

  async createFrom(text: string): Promise<void> {
    await this.write(text, true, async (target, _name, namespace, manifest) => {
      const object = await this.client.send(createRequest(target.ref, namespace, manifest));
      const name = stringField(field(object, 'metadata'), 'name') ?? '';
      return { object, message: `Created ${target.kind} ${name}: resourceVersion ${versionOf(object)}.` };
    });
  }

  private async write(
    text: string,
    creating: boolean,
    send: (target: EditTarget, name: string, namespace: string, manifest: Record<string, unknown>) => Promise<{ object: unknown; message: string }>,
  ): Promise<void> {
    const state = this.stateValue;
    const target = state.target;
    if (!target || state.busy) {
      return;
    }
    const parsed = parseManifest(text, { allowGenerateName: creating });
    if ('problems' in parsed) {
      this.set({ ...state, outcome: { kind: 'invalid', problems: parsed.problems } });
      return;
    }
    const { manifest } = parsed;
    const namespace = target.namespaced ? manifest.namespace : '';
    if (target.namespaced && namespace === '') {
      this.set({ ...state, outcome: { kind: 'invalid', problems: [{ line: 0, column: 0, message: `metadata.namespace is missing: a ${target.kind} lives in a namespace.` }] } });
      return;
    }
    this.set({ ...state, busy: true });
    let next: EditorState;
    let created: CreatedObject | undefined;
    try {
      const { object, message } = await send(target, manifest.name, namespace, { ...manifest.object });
      // After a create, the editor goes on with the object created.
      next = { ...this.stateValue, busy: false, mode: 'edit', subject: subjectOf(object), resourceVersion: versionOf(object), outcome: { kind: 'done', message } };
      const name = stringField(field(object, 'metadata'), 'name') ?? manifest.name;
      created = creating ? { ref: target.ref, namespace, name } : undefined;
    } catch (error) {
      const apiError = asApiError(error);
      next = { ...this.stateValue, busy: false, outcome: { kind: 'failed', message: apiError.describe(), conflicts: applyConflicts(apiError) } };
    }
    if (this.stateValue.generation === state.generation) {
      this.set(next);
      if (created) {
        this.created.emit(created);
      }
    }
  }

  askDelete(kind: string, namespace: string, name: string, object: unknown): void {
    this.set({ ...this.stateValue, confirmDelete: deleteQuestion(kind, namespace, name, object) });
  }

  cancelDelete(): void {
    const { confirmDelete: _, ...rest } = this.stateValue;
    this.set(rest);
  }

  async confirmDelete(ref: ResourceRef, namespace: string, name: string): Promise<void> {
    const { confirmDelete: _, ...rest } = this.stateValue;
    this.set({ ...rest, busy: true });
    try {
      const answer = await this.client.send(deleteRequest(ref, namespace, name));
      const terminating = stringField(field(answer, 'metadata'), 'deletionTimestamp') !== undefined;
      const message = terminating
        ? `Deleting: the object is Terminating until its finalizers are removed.`
        : `Deleted ${namespace === '' ? name : `${namespace}/${name}`}.`;
      this.set({ ...this.stateValue, busy: false, outcome: { kind: 'done', message } });
    } catch (error) {
      this.set({ ...this.stateValue, busy: false, outcome: { kind: 'failed', message: asApiError(error).describe(), conflicts: [] } });
    }
  }
}
