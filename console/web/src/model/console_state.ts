// Everything the console shows, kept apart from how it is drawn: the resource tree (discovery,
// polled), the namespaces (listed and watched), the table of the route's resource (a live feed),
// the row under the cursor, the object open in the detail pane, and the watch events of the
// feeds (with the event open, when the route names one), and what the user may do there (the
// access advice, asked once discovery answered, for the namespace shown). The route (the URL) says what is shown;
// the UI reads this state when `changed` fires and calls applyRoute on navigation.
import { AccessAdvice, FALLBACK_NAMESPACE } from './access_advice';
import { ApiClient } from './api_client';
import type { Clock } from './clock';
import { DiscoveryPoller } from './discovery';
import type { LoggedEvent } from './event_log';
import { FeedCache } from './feed_cache';
import type { Http } from './http';
import { isObject, stringField, type JsonObject } from './json';
import { ObjectDetail, sameTarget, type DetailTarget } from './object_detail';
import { ObjectEditor } from './object_editor';
import { resourceKey, type ResourceRef } from './resource_ref';
import { findResource, type ApiResourceInfo } from './resource_tree';
import { HOME, objectOf, type Route } from './route';
import { Signal } from './signal';
import { TableFeed } from './table_feed';
import { WatchHistory, type EventSource } from './watch_history';

const NAMESPACES: ResourceRef = { group: '', version: 'v1', resource: 'namespaces' };

// A namespaced resource shown in one namespace because listing it in all was refused.
export interface Narrowed {
  readonly namespace: string;
  // The refusal of the list in all namespaces, in the server's words.
  readonly refusal: string;
}

// The event the route names: found in the log, or gone from it (dropped, cleared, or from before
// the page was loaded).
export type OpenEvent = { readonly found: LoggedEvent } | { readonly missing: string };

export class ConsoleState {
  readonly changed = new Signal();
  readonly discovery: DiscoveryPoller;
  readonly namespaces: TableFeed;
  readonly detail: ObjectDetail;
  // The writes from the detail pane (editor, create, delete).
  readonly editor: ObjectEditor;
  readonly history = new WatchHistory();
  // What the user may do (advice: the server decides).
  readonly access: AccessAdvice;
  private readonly feeds: FeedCache;
  private routeValue: Route = HOME;
  private feedValue: TableFeed | undefined;
  private resourceValue: ApiResourceInfo | undefined;
  private problemValue: string | undefined;
  private cursorValue: string | undefined;
  private versionValue = '';
  // The resources (by key) whose list in all namespaces was refused (403), with the refusal:
  // with all namespaces shown, they are listed in FALLBACK_NAMESPACE instead. Forgotten when the
  // namespace changes, so that going back to all namespaces tries again.
  private readonly narrowedKinds = new Map<string, string>();
  private readonly client: ApiClient;

  // username: who the page is signed in as ("" when not known), for the refusals' wording.
  constructor(http: Http, clock: Clock, username = '') {
    const client = new ApiClient(http);
    this.client = client;
    this.access = new AccessAdvice(client, clock, username);
    this.access.changed.subscribe(() => this.changed.emit());
    this.discovery = new DiscoveryPoller(client, clock);
    this.namespaces = new TableFeed({ ref: NAMESPACES, namespace: '', withNamespace: false }, client, clock);
    this.detail = new ObjectDetail(client);
    this.editor = new ObjectEditor(client);
    this.editor.changed.subscribe(() => this.changed.emit());
    this.feeds = new FeedCache(client, clock);
    this.discovery.changed.subscribe(() => {
      this.resolve();
      this.followAccess();
      this.changed.emit();
    });
    this.namespaces.changed.subscribe(() => this.changed.emit());
    this.logEvents(this.namespaces, { ref: NAMESPACES, kind: 'Namespace', namespace: '' });
    this.history.changed.subscribe(() => this.changed.emit());
    this.detail.changed.subscribe(() => {
      this.followDetail();
      this.changed.emit();
    });
  }

  start(): void {
    this.discovery.start();
    this.namespaces.start();
    void this.fetchVersion();
  }

  stop(): void {
    this.discovery.stop();
    this.namespaces.stop();
    this.feeds.stopAll();
    this.detail.close();
    this.access.stop();
  }

  get route(): Route {
    return this.routeValue;
  }

  // The table shown; undefined on the home view, before discovery, or for a resource not served.
  get feed(): TableFeed | undefined {
    return this.feedValue;
  }

  // Set while all namespaces are asked for and the table lists one: listing all was refused.
  get narrowed(): Narrowed | undefined {
    const feed = this.feedValue;
    const refusal = feed ? this.narrowedKinds.get(resourceKey(feed.target.ref)) : undefined;
    return feed && refusal !== undefined && this.routeValue.namespace === '' && feed.target.namespace !== ''
      ? { namespace: feed.target.namespace, refusal }
      : undefined;
  }

  // The route's resource as discovery lists it.
  get resource(): ApiResourceInfo | undefined {
    return this.resourceValue;
  }

  // Why the route's resource or object cannot be shown.
  get problem(): string | undefined {
    return this.problemValue;
  }

  // The server's gitVersion ("v1.32.0"); "" until known.
  get serverVersion(): string {
    return this.versionValue;
  }

  // The key (uid) of the row under the cursor.
  get cursor(): string | undefined {
    return this.cursorValue;
  }

  applyRoute(route: Route): void {
    const before = this.detail.state.target;
    if (route.namespace !== this.routeValue.namespace) {
      this.narrowedKinds.clear();
    }
    this.routeValue = route;
    this.resolve();
    this.followAccess();
    // Another object (or none) in the pane: the editor was for the one before, unless it is
    // the one the editor just created.
    const after = this.detail.state.target;
    if (before !== after && !sameTarget(before, after)) {
      if (!after || !this.editor.isEditing(after.ref, after.namespace, after.name)) {
        this.editor.close();
      }
      this.cursorOff(after);
    }
    this.changed.emit();
  }

  // Asks about the namespace shown, once the server is known to answer.
  private followAccess(): void {
    if (this.discovery.loaded) {
      this.access.follow(this.routeValue.namespace);
    }
  }

  // Takes the cursor off a row that is not the object now open, so that it moves to the
  // object's row once known (an object opened by URL, back and forward, or created).
  private cursorOff(target: DetailTarget | undefined): void {
    const row = this.cursorValue === undefined ? undefined : this.feedValue?.store.get(this.cursorValue);
    if (target && row && (row.name !== target.name || (target.namespace !== '' && row.namespace !== target.namespace))) {
      this.cursorValue = undefined;
    }
  }

  setCursor(key: string | undefined): void {
    if (key !== this.cursorValue) {
      this.cursorValue = key;
      this.changed.emit();
    }
  }

  // The watch event the route names, when it names one (with its object).
  get openEvent(): OpenEvent | undefined {
    const version = this.routeValue.event;
    const target = this.detail.state.target;
    if (version === undefined || !target) {
      return undefined;
    }
    const found = this.history.find(target.ref, target.namespace, target.name, version);
    return found ? { found } : { missing: version };
  }

  // The namespaces to choose from, by name; the route's own is always among them.
  namespaceNames(): string[] {
    const names = new Set<string>();
    const store = this.namespaces.store;
    for (let i = 0; i < store.length; i += 1) {
      const row = store.at(i);
      if (row) {
        names.add(row.name);
      }
    }
    if (this.routeValue.namespace !== '') {
      names.add(this.routeValue.namespace);
    }
    return [...names].sort();
  }

  // The number of objects of a resource in the namespace shown, when a live feed knows it.
  countOf(resource: ApiResourceInfo): number | undefined {
    const namespace = resource.namespaced ? this.routeValue.namespace : '';
    const key = resourceKey(resource);
    for (const feed of [this.namespaces, ...this.feeds.all()]) {
      if (feed.complete && resourceKey(feed.target.ref) === key && feed.target.namespace === namespace) {
        return feed.store.size;
      }
    }
    return undefined;
  }

  private async fetchVersion(): Promise<void> {
    try {
      this.versionValue = stringField(await this.client.getJson('/version'), 'gitVersion') ?? '';
      this.changed.emit();
    } catch {
      // The version is decoration; discovery reports a server that does not answer.
    }
  }

  private resolve(): void {
    const route = this.routeValue;
    const ref = route.resource;
    this.problemValue = undefined;
    if (!ref) {
      this.show(undefined, undefined);
      return;
    }
    const info = findResource(this.discovery.tree, ref.group, ref.resource);
    if (!info) {
      this.show(undefined, undefined);
      if (this.discovery.loaded) {
        this.problemValue = `The server does not serve ${resourceKey(ref)} (${ref.version}): it is not in discovery.`;
      }
      return;
    }
    const narrowed = info.namespaced && route.namespace === '' && this.narrowedKinds.has(resourceKey(ref));
    const namespace = narrowed ? FALLBACK_NAMESPACE : info.namespaced ? route.namespace : '';
    const target = {
      ref,
      namespace,
      withNamespace: info.namespaced && namespace === '',
      watchable: info.verbs.includes('watch'),
    };
    const feed = this.feeds.acquire(target, (created) => {
      created.changed.subscribe(() => this.onFeedChanged(created));
      // The namespaces feed logs the events of namespaces already.
      if (resourceKey(ref) !== resourceKey(NAMESPACES)) {
        this.logEvents(created, { ref, kind: info.kind, namespace });
      }
    });
    feed.store.setFilter(route.filter);
    feed.store.setSort(route.sort);
    this.show(feed, info);
    const object = route.object === undefined ? undefined : objectOf(route.object, info.namespaced, route.namespace);
    if (route.object !== undefined && object === undefined) {
      this.problemValue = `"${route.object}" names no ${info.kind}: give it as namespace/name.`;
    }
    this.detail.open(object ? { ref, kind: info.kind, ...object } : undefined);
    this.followDetail();
  }

  private show(feed: TableFeed | undefined, info: ApiResourceInfo | undefined): void {
    if (feed !== this.feedValue) {
      this.cursorValue = undefined;
    }
    this.feedValue = feed;
    this.resourceValue = info;
    if (!feed) {
      this.detail.close();
    }
  }

  // Logs the watch events of a feed.
  private logEvents(feed: TableFeed, source: EventSource): void {
    feed.events.subscribe((batch) => this.history.record(batch, source, (uid) => this.detailObject(uid)));
  }

  // The object the detail pane holds, when it is this uid's.
  private detailObject(uid: string): JsonObject | undefined {
    const { object, uid: shown } = this.detail.state;
    return shown === uid && isObject(object) ? object : undefined;
  }

  private onFeedChanged(feed: TableFeed): void {
    if (feed === this.feedValue) {
      this.narrowIfRefused(feed);
      this.followDetail();
    }
    this.changed.emit();
  }

  // A list in all namespaces refused (403): the resource is listed in one namespace instead.
  private narrowIfRefused(feed: TableFeed): void {
    const error = feed.status.error;
    const key = resourceKey(feed.target.ref);
    if (!feed.target.withNamespace || error?.code !== 403 || this.narrowedKinds.has(key)) {
      return;
    }
    this.narrowedKinds.set(key, error.describe());
    this.resolve();
  }

  // Tells the detail pane what the table knows of its object, and puts the cursor on its row.
  private followDetail(): void {
    const feed = this.feedValue;
    const { uid, target } = this.detail.state;
    if (!feed || !target || uid === '') {
      return;
    }
    const row = feed.store.get(uid);
    if (row && this.cursorValue === undefined) {
      this.cursorValue = uid;
    }
    const covers = feed.target.namespace === '' || feed.target.namespace === target.namespace;
    const current = feed.status.phase === 'live' || feed.status.phase === 'polled';
    if (covers && feed.complete && current) {
      this.detail.observe(row?.resourceVersion);
    }
  }
}
