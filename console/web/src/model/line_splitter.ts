// Text chunks in, complete lines out (a watch sends one JSON event a line). A line longer than
// the limit is an error rather than a buffer that grows without bound.
import { ApiError } from './errors';

export const MAX_LINE_LENGTH = 16 * 1024 * 1024;

export class LineSplitter {
  private pending = '';

  constructor(private readonly maxLength = MAX_LINE_LENGTH) {}

  // The lines this chunk completes, without their "\n" (or "\r\n"); blank lines are skipped.
  push(chunk: string): string[] {
    const firstNewline = chunk.indexOf('\n');
    if (firstNewline < 0) {
      this.pending += chunk;
      this.checkLength();
      return [];
    }
    const text = this.pending + chunk;
    const lines: string[] = [];
    let start = 0;
    for (let end = this.pending.length + firstNewline; end >= 0; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      if (line.trim() !== '') {
        lines.push(line);
      }
      start = end + 1;
    }
    this.pending = text.slice(start);
    this.checkLength();
    return lines;
  }

  private checkLength(): void {
    if (this.pending.length > this.maxLength) {
      this.pending = '';
      throw new ApiError('decode', `a watch event is longer than ${this.maxLength} characters`);
    }
  }

  // What is left once the stream ends: a last line without "\n", if any.
  finish(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() === '' ? [] : [rest];
  }
}
