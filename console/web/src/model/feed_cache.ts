// The collections kept live: by default only the one shown, so changing the view aborts the
// watch of the one before (a browser has six HTTP/1.1 connections per origin, and each watch
// holds one). A larger limit keeps the few shown last live too (instant to go back to, counted
// in the tree); beyond it the least recently shown is stopped and dropped with its rows.
import type { ApiClient } from './api_client';
import type { Clock } from './clock';
import { resourceKey } from './resource_ref';
import { TableFeed, type FeedTarget } from './table_feed';

export const LIVE_FEEDS = 1;

export function targetKey(target: FeedTarget): string {
  return `${resourceKey(target.ref)}@${target.ref.version}|${target.namespace}|${target.withNamespace ? 'ns' : ''}`;
}

export class FeedCache {
  // In order of use, least recent first.
  private readonly feeds = new Map<string, TableFeed>();

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly limit = LIVE_FEEDS,
  ) {}

  // The feed of target, started, now the most recently used. onCreate subscribes a new one.
  acquire(target: FeedTarget, onCreate: (feed: TableFeed) => void): TableFeed {
    const key = targetKey(target);
    let feed = this.feeds.get(key);
    if (feed) {
      this.feeds.delete(key);
    } else {
      feed = new TableFeed(target, this.client, this.clock);
      onCreate(feed);
    }
    this.feeds.set(key, feed);
    feed.start();
    for (const [oldKey, old] of this.feeds) {
      if (this.feeds.size <= this.limit) {
        break;
      }
      old.stop();
      this.feeds.delete(oldKey);
    }
    return feed;
  }

  // The live feeds, least recent first.
  all(): TableFeed[] {
    return [...this.feeds.values()];
  }

  stopAll(): void {
    for (const feed of this.feeds.values()) {
      feed.stop();
    }
    this.feeds.clear();
  }
}
