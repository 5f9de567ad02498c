// One animation frame for the whole page. The parts that asked to be drawn are all measured
// first (their layout reads), then all drawn (their writes), so no read follows a write within a
// frame and the browser lays the page out once. The page as a whole is one part: while it is
// pending, it draws every pane and the others wait for no frame of their own. No DOM here
// (the frame is requested through what the constructor is given), so it is tested in node.

export interface FramePart {
  // Reads layout (sizes, scroll positions); writes nothing.
  measure(): void;
  // Writes the part's DOM from what it measured; reads no layout.
  draw(): void;
}

export type RequestFrame = (callback: () => void) => void;

export class FrameScheduler {
  private readonly pending = new Set<FramePart>();
  private wholePending = false;
  private requested = false;

  constructor(
    private readonly whole: FramePart,
    private readonly requestFrame: RequestFrame,
  ) {}

  // Draws the whole page in the next frame.
  requestAll(): void {
    this.wholePending = true;
    this.schedule();
  }

  // Draws this part in the next frame.
  request(part: FramePart): void {
    this.pending.add(part);
    this.schedule();
  }

  private schedule(): void {
    if (this.requested) {
      return;
    }
    this.requested = true;
    this.requestFrame(() => this.run());
  }

  private run(): void {
    this.requested = false;
    const parts = this.wholePending ? [this.whole] : [...this.pending];
    this.wholePending = false;
    this.pending.clear();
    for (const part of parts) {
      part.measure();
    }
    for (const part of parts) {
      part.draw();
    }
  }
}
