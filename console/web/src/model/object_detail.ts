// The object open in the detail pane: fetched whole as JSON, shown as YAML; fetched again when
// the table's watch shows it changed, marked deleted when the watch shows it gone.
import type { ApiClient } from './api_client';
import { CancelToken } from './cancel';
import { asApiError, isCancelled, type ApiError } from './errors';
import { field, stringField } from './json';
import { objectPath, sameResource, type ResourceRef } from './resource_ref';
import { Signal } from './signal';
import { objectYaml } from './yaml_view';

export interface DetailTarget {
  readonly ref: ResourceRef;
  readonly kind: string;
  // "" for a cluster-scoped object.
  readonly namespace: string;
  readonly name: string;
}

export interface DetailState {
  readonly target?: DetailTarget;
  readonly loading: boolean;
  // The object as fetched last; undefined before the first fetch succeeds.
  readonly object?: unknown;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly error?: ApiError;
  // The watch saw it deleted; object is its last version.
  readonly deleted: boolean;
}

export function sameTarget(a: DetailTarget | undefined, b: DetailTarget | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    sameResource(a.ref, b.ref) &&
    a.namespace === b.namespace &&
    a.name === b.name
  );
}

const CLOSED: DetailState = { loading: false, uid: '', resourceVersion: '', deleted: false };

export class ObjectDetail {
  readonly changed = new Signal();
  private stateValue: DetailState = CLOSED;
  private cancel: CancelToken | undefined;
  // A change was seen while a fetch was in flight: fetch again when it ends.
  private stale = false;
  // The resourceVersion the table showed last: a fetch follows a change of it, not a difference
  // with the fetched version (which may be newer than the table's for a moment).
  private seenVersion: string | undefined;
  private showManaged = false;
  private yamlCache: { object: unknown; showManaged: boolean; text: string } | undefined;

  constructor(private readonly client: ApiClient) {}

  get state(): DetailState {
    return this.stateValue;
  }

  get showManagedFields(): boolean {
    return this.showManaged;
  }

  setShowManagedFields(show: boolean): void {
    if (show !== this.showManaged) {
      this.showManaged = show;
      this.changed.emit();
    }
  }

  // The YAML of the object shown ("" before it is fetched).
  yaml(): string {
    const object = this.stateValue.object;
    if (object === undefined) {
      return '';
    }
    const cached = this.yamlCache;
    if (cached && cached.object === object && cached.showManaged === this.showManaged) {
      return cached.text;
    }
    const text = objectYaml(object, { showManagedFields: this.showManaged });
    this.yamlCache = { object, showManaged: this.showManaged, text };
    return text;
  }

  open(target: DetailTarget | undefined): void {
    if (target === undefined) {
      this.close();
      return;
    }
    if (sameTarget(target, this.stateValue.target)) {
      return;
    }
    this.cancel?.cancel();
    this.seenVersion = undefined;
    this.stateValue = { ...CLOSED, target, loading: true };
    this.changed.emit();
    void this.fetch();
  }

  close(): void {
    this.cancel?.cancel();
    this.cancel = undefined;
    if (this.stateValue.target !== undefined) {
      this.stateValue = CLOSED;
      this.changed.emit();
    }
  }

  // What the table's watch says of the open object: its resourceVersion now, or undefined when
  // the object is gone. Fetches again when the version differs from the one shown.
  observe(resourceVersion: string | undefined): void {
    const state = this.stateValue;
    if (state.target === undefined || state.uid === '') {
      return;
    }
    if (resourceVersion === undefined) {
      if (!state.deleted) {
        this.stateValue = { ...state, deleted: true };
        this.changed.emit();
      }
      return;
    }
    const seen = this.seenVersion;
    this.seenVersion = resourceVersion;
    if (resourceVersion === seen || (resourceVersion === state.resourceVersion && !state.deleted)) {
      return;
    }
    if (state.loading) {
      this.stale = true;
      return;
    }
    void this.fetch();
  }

  private async fetch(): Promise<void> {
    const target = this.stateValue.target;
    if (target === undefined) {
      return;
    }
    this.cancel?.cancel();
    const cancel = new CancelToken();
    this.cancel = cancel;
    this.stale = false;
    if (!this.stateValue.loading) {
      this.stateValue = { ...this.stateValue, loading: true };
      this.changed.emit();
    }
    try {
      const object = await this.client.getJson(objectPath(target.ref, target.namespace, target.name), { cancel });
      if (cancel.cancelled) {
        return;
      }
      const metadata = field(object, 'metadata');
      this.stateValue = {
        target,
        loading: false,
        object,
        uid: stringField(metadata, 'uid') ?? '',
        resourceVersion: stringField(metadata, 'resourceVersion') ?? '',
        deleted: false,
      };
    } catch (error) {
      if (cancel.cancelled || isCancelled(error)) {
        return;
      }
      const apiError = asApiError(error);
      // A 404 after the object was shown: it was deleted; keep its last version.
      const gone = apiError.code === 404 && this.stateValue.object !== undefined;
      this.stateValue = gone
        ? { ...this.stateValue, loading: false, deleted: true }
        : { ...this.stateValue, loading: false, error: apiError };
    }
    this.changed.emit();
    if (this.stale) {
      void this.fetch();
    }
  }
}
