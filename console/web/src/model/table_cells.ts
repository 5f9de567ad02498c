// Cells of the server's Table: their text, their sort keys, and ages as kubectl writes them.

// A cell as text: strings as sent, numbers and booleans printed, null empty, anything else JSON.
export function cellText(cell: unknown): string {
  switch (typeof cell) {
    case 'string':
      return cell;
    case 'number':
    case 'boolean':
      return String(cell);
    case 'undefined':
      return '';
    default:
      return cell === null ? '' : JSON.stringify(cell);
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

// A key that orders text naturally under plain string comparison: case-insensitive, runs of
// digits by their numeric value ("pod-9" before "pod-10"). Equal keys only for equal text.
export function naturalKey(text: string): string {
  let out = '';
  let i = 0;
  const lower = text.toLowerCase();
  while (i < lower.length) {
    if (!isDigit(lower.charCodeAt(i))) {
      out += lower[i];
      i += 1;
      continue;
    }
    while (i < lower.length && lower.charCodeAt(i) === 48) {
      i += 1;
    }
    const start = i;
    while (i < lower.length && isDigit(lower.charCodeAt(i))) {
      i += 1;
    }
    // A digit run sorts where a '0' would, then by its length (one UTF-16 unit), then by its
    // digits: so 9 < 10 < 011 == 11 up to the tie-break below.
    out += '0' + String.fromCharCode(Math.min(i - start, 0xffff)) + lower.slice(start, i);
  }
  return `${out}\u0000${text}`;
}

const AGE_UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400, y: 365 * 86400 };

// An age as kubectl writes it ("45s", "5m", "3d4h", "2y10d") in seconds; undefined otherwise.
export function parseAge(text: string): number | undefined {
  const parts = /^(?:\d+[smhdy])+$/.test(text) ? text.match(/\d+[smhdy]/g) : null;
  if (parts === null) {
    return undefined;
  }
  let total = 0;
  for (const part of parts) {
    const unit = AGE_UNIT_SECONDS[part.slice(-1)];
    if (unit === undefined) {
      return undefined;
    }
    total += Number(part.slice(0, -1)) * unit;
  }
  return total;
}

// RFC 3339 text ("2024-05-01T10:00:00Z") in milliseconds since the epoch; undefined otherwise.
export function parseTimestamp(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) {
    return undefined;
  }
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

// A duration as kubectl prints an age: two significant units at most, coarser as it grows.
export function humanAge(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) {
    return '<invalid>';
  }
  if (seconds < 0) {
    return '0s';
  }
  if (seconds < 120) {
    return `${seconds}s`;
  }
  const minutes = Math.floor(seconds / 60);
  const two = (big: number, bigUnit: string, small: number, smallUnit: string): string =>
    small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`;
  if (minutes < 10) {
    return two(minutes, 'm', seconds % 60, 's');
  }
  if (minutes < 180) {
    return `${minutes}m`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    return two(hours, 'h', minutes % 60, 'm');
  }
  if (hours < 48) {
    return `${hours}h`;
  }
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) {
    return two(days, 'd', hours % 24, 'h');
  }
  if (hours < 24 * 365 * 2) {
    return `${days}d`;
  }
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) {
    return two(years, 'y', days % 365, 'd');
  }
  return `${years}y`;
}

// A number cell's value: numbers as sent, numeric text parsed; NaN when there is none.
export function numberKey(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? Number.NaN : Number(trimmed);
}

// The instant a time cell stands for, in ms: RFC 3339 text, or an age counted back from when the
// row arrived; NaN when there is none.
export function instantOf(text: string, receivedAt: number): number {
  const stamp = parseTimestamp(text);
  if (stamp !== undefined) {
    return stamp;
  }
  const age = parseAge(text);
  return age === undefined ? Number.NaN : receivedAt - age * 1000;
}
