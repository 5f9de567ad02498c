// A change notification: the UI subscribes to the model and reads its state when told. A signal
// may carry a value (the watch events a feed delivered); most carry none.

export class Signal<T = void> {
  private readonly listeners = new Set<(value: T) => void>();

  // Returns the unsubscribe.
  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      listener(value);
    }
  }
}
