// One collection kept current: LIST as a Table page by page (following metadata.continue), then
// WATCH from the list's resourceVersion with bookmarks, applying each event to the TableStore in
// place (a resource without the watch verb is listed again every few seconds instead). The watch is resumed from the last resourceVersion seen when the server ends it, after a
// backoff when it fails, and the list is read again on 410 Gone (or when the columns change).
//
// The LIST asks for the rows' metadata only (the server's default); the WATCH asks for the whole
// object in each row (includeObject=Object), which the feed does not keep but hands to the
// listeners of `events` (the console's event log) with each batch of events.
//
// Memory: the rows themselves, the partial line of the watch (bounded), and the events of one
// chunk of the stream; nothing else grows.
import type { ApiClient } from './api_client';
import { Backoff } from './backoff';
import { CancelToken } from './cancel';
import { sleep, type Clock } from './clock';
import { asApiError, isCancelled, type ApiError } from './errors';
import { ACCEPT_TABLE } from './http';
import { LineSplitter } from './line_splitter';
import { collectionPath, type ResourceRef } from './resource_ref';
import { Signal } from './signal';
import { parseTable, type Row, type ServerColumn } from './table_data';
import { TableStore, type RowChange } from './table_store';
import { parseWatchEvent } from './watch_event';

// The first page is small, so that the first rows show at once; the pages after it are larger,
// so that a long list takes fewer round trips (each costs the server a request and the page a
// wait: 50,000 objects are 11 requests instead of 100).
export const PAGE_SIZE = 500;
export const LATER_PAGE_SIZE = 5000;
export const WATCH_TIMEOUT_SECONDS = 300;
// While the first list is read, the rows so far are shown at most this often.
const PUBLISH_INTERVAL_MS = 300;
// A watch that ends sooner than this without an event waits a backoff before the next.
const SHORT_WATCH_MS = 1000;

// A resource without the watch verb is listed again this often.
export const POLL_INTERVAL_MS = 10_000;

// listing: a LIST is being read; live: watching; polled: listed, to be listed again (no watch
// verb); retrying: the last request failed.
export type FeedPhase = 'listing' | 'live' | 'polled' | 'retrying';

export interface FeedStatus {
  readonly phase: FeedPhase;
  // Rows read so far by the list in progress.
  readonly listed: number;
  // The last failure, while retrying.
  readonly error?: ApiError;
}

export interface FeedTarget {
  readonly ref: ResourceRef;
  // "" for all namespaces, or for a cluster-scoped resource.
  readonly namespace: string;
  // A Namespace column in front (listing a namespaced resource across namespaces).
  readonly withNamespace: boolean;
  // False for a resource without the watch verb: it is listed again every POLL_INTERVAL_MS.
  readonly watchable?: boolean;
}

// A watch event as the feed hands it on: a change with its row and the object the server sent
// (whole, or its metadata from a server that ignores includeObject), or a bookmark.
export type FeedEvent =
  | {
      readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
      readonly row: Row;
      readonly object: unknown;
      readonly receivedAt: number;
    }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string; readonly receivedAt: number };

class Relist extends Error {}

export class TableFeed {
  readonly store: TableStore;
  readonly changed = new Signal();
  // The watch events of each chunk of the stream, in order, after the rows took them.
  readonly events = new Signal<readonly FeedEvent[]>();
  private statusValue: FeedStatus = { phase: 'listing', listed: 0 };
  private listedOnce = false;
  private resourceVersion = '';
  private cancel: CancelToken | undefined;

  constructor(
    readonly target: FeedTarget,
    private readonly client: ApiClient,
    private readonly clock: Clock,
  ) {
    this.store = new TableStore(target.withNamespace);
  }

  get status(): FeedStatus {
    return this.statusValue;
  }

  // True once a whole list has been read: the store's size is then a count the console knows.
  get complete(): boolean {
    return this.listedOnce;
  }

  get running(): boolean {
    return this.cancel !== undefined;
  }

  start(): void {
    if (this.cancel) {
      return;
    }
    const cancel = new CancelToken();
    this.cancel = cancel;
    void this.run(cancel);
  }

  // Aborts the request in flight; the rows stay as they were.
  stop(): void {
    this.cancel?.cancel();
    this.cancel = undefined;
  }

  private get path(): string {
    return collectionPath(this.target.ref, this.target.namespace);
  }

  private setStatus(status: FeedStatus): void {
    this.statusValue = status;
    this.changed.emit();
  }

  private async run(cancel: CancelToken): Promise<void> {
    const backoff = new Backoff();
    let needList = true;
    let gone = 0;
    while (!cancel.cancelled) {
      try {
        if (needList) {
          await this.list(cancel);
          needList = false;
        }
        if (this.target.watchable === false) {
          this.setStatus({ phase: 'polled', listed: 0 });
          backoff.reset();
          await sleep(this.clock, POLL_INTERVAL_MS, cancel);
          needList = true;
          continue;
        }
        const started = this.clock.now();
        const events = await this.watch(cancel);
        gone = 0;
        backoff.reset();
        if (events === 0 && this.clock.now() - started < SHORT_WATCH_MS) {
          await sleep(this.clock, backoff.delay(), cancel);
        }
      } catch (thrown) {
        if (cancel.cancelled || isCancelled(thrown)) {
          return;
        }
        if (thrown instanceof Relist) {
          needList = true;
          continue;
        }
        const error = asApiError(thrown);
        if (error.code === 410) {
          // The resourceVersion is too old (or a continue token expired): list again at once,
          // unless that keeps happening.
          needList = true;
          gone += 1;
          if (gone <= 2) {
            continue;
          }
        }
        if (this.resourceVersion === '') {
          needList = true;
        }
        this.setStatus({ phase: 'retrying', listed: 0, error });
        await sleep(this.clock, backoff.delay(), cancel);
      }
    }
  }

  // Reads the whole list. The first list shows its rows as they arrive; a later one (after a
  // 410 or a failure) replaces the rows only once complete, so the view never empties.
  private async list(cancel: CancelToken): Promise<void> {
    this.setStatus({ phase: 'listing', listed: 0 });
    const rows: Row[] = [];
    let columns: readonly ServerColumn[] = [];
    let token = '';
    let resourceVersion = '';
    let published = Number.NEGATIVE_INFINITY;
    do {
      const query = token === '' ? `limit=${PAGE_SIZE}` : `limit=${LATER_PAGE_SIZE}&continue=${encodeURIComponent(token)}`;
      const body = await this.client.getJson(`${this.path}?${query}`, { accept: ACCEPT_TABLE, cancel });
      if (cancel.cancelled) {
        return;
      }
      const page = parseTable(body, this.clock.now(), token === '' ? undefined : columns);
      if (token === '') {
        columns = page.columns;
        resourceVersion = page.resourceVersion;
      }
      for (const row of page.rows) {
        rows.push(row);
      }
      token = page.continueToken;
      if (!this.listedOnce && token !== '' && this.clock.now() - published >= PUBLISH_INTERVAL_MS) {
        this.store.replace(columns, rows);
        published = this.clock.now();
      }
      this.setStatus({ phase: 'listing', listed: rows.length });
    } while (token !== '');
    this.store.replace(columns, rows);
    this.resourceVersion = resourceVersion;
    this.listedOnce = true;
    this.changed.emit();
  }

  // Watches until the server ends the stream; returns how many events arrived.
  private async watch(cancel: CancelToken): Promise<number> {
    const query =
      `watch=1&resourceVersion=${encodeURIComponent(this.resourceVersion)}` +
      `&allowWatchBookmarks=true&timeoutSeconds=${WATCH_TIMEOUT_SECONDS}&includeObject=Object`;
    const response = await this.client.open(`${this.path}?${query}`, { accept: ACCEPT_TABLE, cancel });
    this.setStatus({ phase: 'live', listed: 0 });
    const splitter = new LineSplitter();
    let events = 0;
    for await (const chunk of response.chunks()) {
      if (cancel.cancelled) {
        return events;
      }
      events += this.handleLines(splitter.push(chunk));
    }
    return events + this.handleLines(splitter.finish());
  }

  private handleLines(lines: readonly string[]): number {
    if (lines.length === 0) {
      return 0;
    }
    const changes: RowChange[] = [];
    const delivered: FeedEvent[] = [];
    const flush = (): void => {
      if (changes.length > 0) {
        this.store.apply(changes);
        changes.length = 0;
      }
      if (delivered.length > 0) {
        this.events.emit(delivered.splice(0));
        this.changed.emit();
      }
    };
    try {
      for (const line of lines) {
        const receivedAt = this.clock.now();
        const event = parseWatchEvent(line, this.store.listColumns, receivedAt);
        switch (event.type) {
          case 'ADDED':
          case 'MODIFIED':
          case 'DELETED':
            for (const { row, object } of event.items) {
              changes.push({ type: event.type, row });
              delivered.push({ type: event.type, row, object, receivedAt });
            }
            this.resourceVersion = event.resourceVersion || this.resourceVersion;
            break;
          case 'BOOKMARK':
            delivered.push({ type: 'BOOKMARK', resourceVersion: event.resourceVersion, receivedAt });
            this.resourceVersion = event.resourceVersion || this.resourceVersion;
            break;
          case 'ERROR':
            throw event.error;
          case 'COLUMNS_CHANGED':
            throw new Relist();
        }
      }
    } finally {
      flush();
    }
    return lines.length;
  }
}
