// Time for the model: injected so tests control it.

export interface Clock {
  // Milliseconds since the epoch.
  now(): number;
  // Runs callback after ms; returns a function that cancels it.
  setTimer(callback: () => void, ms: number): () => void;
}

// A promise that resolves after ms, or at once on cancel.
export function sleep(clock: Clock, ms: number, cancel: { onCancel(listener: () => void): () => void }): Promise<void> {
  return new Promise((resolve) => {
    let off = (): void => {};
    const stop = clock.setTimer(() => {
      off();
      resolve();
    }, ms);
    off = cancel.onCancel(() => {
      stop();
      resolve();
    });
  });
}
