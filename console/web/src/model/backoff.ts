// Exponential backoff between retries: 250 ms doubling to 30 s, back to the start on success.

export class Backoff {
  private next: number;

  constructor(
    private readonly initialMs = 250,
    private readonly maxMs = 30_000,
  ) {
    this.next = initialMs;
  }

  // The delay before the next attempt; each call doubles the one after.
  delay(): number {
    const delay = this.next;
    this.next = Math.min(this.next * 2, this.maxMs);
    return delay;
  }

  reset(): void {
    this.next = this.initialMs;
  }
}
