// The words under the table: how many rows, and whether the feed is listing, live or retrying.
// Pure, so tested without a browser.
import type { FeedStatus } from '../model/table_feed';

const numbers = new Intl.NumberFormat('en-US');

export function formatCount(n: number): string {
  return numbers.format(n);
}

// "12 of 50,000 rows", "50,000 rows".
export function rowsText(shown: number, total: number, filtered: boolean): string {
  const noun = total === 1 ? 'row' : 'rows';
  return filtered ? `${formatCount(shown)} of ${formatCount(total)} ${noun}` : `${formatCount(total)} ${noun}`;
}

export interface FeedLine {
  readonly text: string;
  readonly tone: 'ok' | 'busy' | 'error';
}

export function feedLine(status: FeedStatus, complete: boolean): FeedLine {
  switch (status.phase) {
    case 'listing':
      return {
        text: complete ? `Listing again… ${formatCount(status.listed)} rows read` : `Listing… ${formatCount(status.listed)} rows read`,
        tone: 'busy',
      };
    case 'live':
      return { text: 'Live: watching for changes', tone: 'ok' };
    case 'polled':
      return { text: 'No watch verb: listed again every 10 s', tone: 'ok' };
    case 'retrying':
      return {
        text: `${complete ? 'Watch' : 'List'} failed: ${status.error?.describe() ?? 'unknown error'}. Retrying…`,
        tone: 'error',
      };
  }
}
