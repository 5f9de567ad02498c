// A change notification: the UI subscribes to the model and reads its state when told.

export class Signal {
  private readonly listeners = new Set<() => void>();

  // Returns the unsubscribe.
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(): void {
    for (const listener of [...this.listeners]) {
      listener();
    }
  }
}
