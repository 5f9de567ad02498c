// Cancellation of requests and loops, without the DOM's AbortController (the model compiles
// without the DOM library; the network adapter links a token to an AbortController).

export class CancelToken {
  private cancelledFlag = false;
  private readonly listeners = new Set<() => void>();

  get cancelled(): boolean {
    return this.cancelledFlag;
  }

  cancel(): void {
    if (this.cancelledFlag) {
      return;
    }
    this.cancelledFlag = true;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) {
      listener();
    }
  }

  // Calls listener once on cancel (at once when already cancelled). Returns the unsubscribe.
  onCancel(listener: () => void): () => void {
    if (this.cancelledFlag) {
      listener();
      return () => {};
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  // A token cancelled with this one or by itself.
  child(): CancelToken {
    const token = new CancelToken();
    const off = this.onCancel(() => token.cancel());
    token.onCancel(off);
    return token;
  }
}
