// Discovery, polled: the resource tree is fetched again every few seconds, so custom resources
// appear and disappear while the console runs. Listeners hear of a change only when what the
// tree shows changed.
import type { ApiClient } from './api_client';
import { CancelToken } from './cancel';
import { sleep, type Clock } from './clock';
import { asApiError, isCancelled, type ApiError } from './errors';
import { groupVersionPath } from './resource_ref';
import {
  buildTree,
  EMPTY_TREE,
  parseCoreVersions,
  parseGroupList,
  parseResourceList,
  treeSignature,
  type GroupResult,
  type GroupVersion,
  type ResourceTree,
} from './resource_tree';
import { Signal } from './signal';

export const DISCOVERY_INTERVAL_MS = 5000;

// One round: /api and /apis, then every preferred group version at once.
export async function discover(client: ApiClient, previous: ResourceTree, cancel: CancelToken): Promise<ResourceTree> {
  const [core, groups] = await Promise.all([
    client.getJson('/api', { cancel }),
    client.getJson('/apis', { cancel }),
  ]);
  const versions: GroupVersion[] = [parseCoreVersions(core), ...parseGroupList(groups)];
  const results = await Promise.all(
    versions.map(async (gv): Promise<GroupResult> => {
      try {
        const list = await client.getJson(groupVersionPath(gv.group, gv.version), { cancel });
        return { gv, resources: parseResourceList(list, gv) };
      } catch (error) {
        if (isCancelled(error)) {
          throw error;
        }
        return { gv, error: asApiError(error).describe() };
      }
    }),
  );
  return buildTree(results, previous);
}

export class DiscoveryPoller {
  readonly changed = new Signal();
  private treeValue: ResourceTree = EMPTY_TREE;
  private signature = treeSignature(EMPTY_TREE);
  private loadedValue = false;
  private errorValue: ApiError | undefined;
  private cancel: CancelToken | undefined;
  private wake: CancelToken | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly intervalMs = DISCOVERY_INTERVAL_MS,
  ) {}

  get tree(): ResourceTree {
    return this.treeValue;
  }

  // True once a round has succeeded.
  get loaded(): boolean {
    return this.loadedValue;
  }

  // Why the last round failed (the tree is then the last one known).
  get error(): ApiError | undefined {
    return this.errorValue;
  }

  start(): void {
    if (this.cancel) {
      return;
    }
    const cancel = new CancelToken();
    this.cancel = cancel;
    void this.loop(cancel);
  }

  stop(): void {
    this.cancel?.cancel();
    this.cancel = undefined;
  }

  // Polls now rather than at the end of the interval.
  refresh(): void {
    this.wake?.cancel();
  }

  private async loop(cancel: CancelToken): Promise<void> {
    while (!cancel.cancelled) {
      try {
        const tree = await discover(this.client, this.treeValue, cancel);
        if (cancel.cancelled) {
          return;
        }
        this.update(tree, undefined);
      } catch (error) {
        if (cancel.cancelled) {
          return;
        }
        this.update(this.treeValue, asApiError(error));
      }
      this.wake = cancel.child();
      await sleep(this.clock, this.intervalMs, this.wake);
    }
  }

  private update(tree: ResourceTree, error: ApiError | undefined): void {
    const signature = treeSignature(tree);
    const changed =
      signature !== this.signature || error?.describe() !== this.errorValue?.describe() || (!this.loadedValue && !error);
    this.treeValue = tree;
    this.signature = signature;
    this.errorValue = error;
    if (!error) {
      this.loadedValue = true;
    }
    if (changed) {
      this.changed.emit();
    }
  }
}
