import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FrameScheduler, type FramePart } from '../src/ui/frame_scheduler';

// A scheduler whose frames run when the test says, and parts that log what they do.
function setup(): { scheduler: FrameScheduler; log: string[]; part: (name: string) => FramePart; frame: () => void; frames: () => number } {
  const log: string[] = [];
  const callbacks: (() => void)[] = [];
  const part = (name: string): FramePart => ({ measure: () => log.push(`measure ${name}`), draw: () => log.push(`draw ${name}`) });
  const scheduler = new FrameScheduler(part('page'), (callback) => callbacks.push(callback));
  return {
    scheduler,
    log,
    part,
    frame: () => callbacks.splice(0).forEach((callback) => callback()),
    frames: () => callbacks.length,
  };
}

describe('frame scheduler', () => {
  test('every part is measured before any is drawn, each once a frame', () => {
    const { scheduler, log, part, frame, frames } = setup();
    const table = part('table');
    const events = part('events');
    scheduler.request(table);
    scheduler.request(events);
    scheduler.request(table);
    assert.equal(frames(), 1);
    frame();
    assert.deepEqual(log, ['measure table', 'measure events', 'draw table', 'draw events']);
    assert.equal(frames(), 0);
  });

  test('the whole page pending draws instead of its parts', () => {
    const { scheduler, log, part, frame, frames } = setup();
    scheduler.request(part('table'));
    scheduler.requestAll();
    assert.equal(frames(), 1);
    frame();
    assert.deepEqual(log, ['measure page', 'draw page']);
  });

  test('a request while drawing waits for the next frame', () => {
    const { scheduler, log, frame, frames } = setup();
    const again: FramePart = {
      measure: () => log.push('measure again'),
      draw: () => {
        log.push('draw again');
        if (log.length < 4) {
          scheduler.request(again);
        }
      },
    };
    scheduler.request(again);
    frame();
    assert.equal(frames(), 1);
    frame();
    assert.deepEqual(log, ['measure again', 'draw again', 'measure again', 'draw again']);
    assert.equal(frames(), 0);
  });
});
