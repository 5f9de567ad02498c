// Test doubles for the model's injected clock and HTTP.
import type { Clock } from '../src/model/clock';
import { ApiError } from '../src/model/errors';
import type { Http, HttpRequest, HttpResponse } from '../src/model/http';

export class FakeClock implements Clock {
  private time = 1_700_000_000_000;
  private timers: { at: number; callback: () => void; id: number }[] = [];
  private nextId = 0;

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, callback, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  get pending(): number {
    return this.timers.length;
  }

  // Moves time on, running the timers due, in order, letting promises settle between them.
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) {
        break;
      }
      this.timers = this.timers.filter((t) => t.id !== due.id);
      this.time = due.at;
      due.callback();
    }
    this.time = end;
    await settle();
  }
}

// Lets every pending promise chain run.
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// A body the test writes into while the code under test reads it.
export class StreamBody {
  private chunks: string[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  write(chunk: string): void {
    this.chunks.push(chunk);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *read(cancelled: () => boolean): AsyncGenerator<string> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        yield chunk;
        continue;
      }
      if (this.ended || cancelled()) {
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}

export type Reply = { status: number; body: string } | { status: number; stream: StreamBody } | 'network-error';

export function json(value: unknown, status = 200): Reply {
  return { status, body: JSON.stringify(value) };
}

// An Http answering each request with the reply of the first handler that takes it; requests are
// recorded.
export class FakeHttp {
  readonly requests: HttpRequest[] = [];
  private handlers: ((request: HttpRequest) => Reply | undefined)[] = [];

  on(handler: (request: HttpRequest) => Reply | undefined): void {
    this.handlers.push(handler);
  }

  // Answers GETs of exactly this path (query included) or, when the path has no '?', of this
  // path with any query.
  onGet(path: string, reply: Reply | ((request: HttpRequest) => Reply)): void {
    this.on((request) => {
      const bare = request.path.split('?')[0];
      if (request.method !== 'GET' || (request.path !== path && (path.includes('?') || bare !== path))) {
        return undefined;
      }
      return typeof reply === 'function' ? reply(request) : reply;
    });
  }

  readonly http: Http = async (request) => {
    this.requests.push(request);
    const cancel = request.cancel;
    if (cancel?.cancelled) {
      throw new ApiError('cancelled', 'cancelled');
    }
    let reply: Reply | undefined;
    for (const handler of this.handlers) {
      reply = handler(request);
      if (reply !== undefined) {
        break;
      }
    }
    if (reply === undefined) {
      reply = json({ kind: 'Status', status: 'Failure', message: `no fake for ${request.path}`, reason: 'NotFound', code: 404 }, 404);
    }
    if (reply === 'network-error') {
      throw new ApiError('network', 'connection refused');
    }
    const answer = reply;
    const response: HttpResponse = {
      status: answer.status,
      text: async () => {
        if ('body' in answer) {
          return answer.body;
        }
        let all = '';
        for await (const chunk of answer.stream.read(() => cancel?.cancelled ?? false)) {
          all += chunk;
        }
        return all;
      },
      chunks: () => {
        if ('body' in answer) {
          const body = answer.body;
          return (async function* () {
            yield body;
          })();
        }
        return answer.stream.read(() => cancel?.cancelled ?? false);
      },
    };
    if ('stream' in answer) {
      cancel?.onCancel(() => answer.stream.end());
    }
    return response;
  };

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }
}

// Discovery of the core group alone, serving these resources (as /api/v1 lists them).
export function coreDiscovery(http: FakeHttp, resources: readonly unknown[]): void {
  http.onGet('/api', json({ versions: ['v1'] }));
  http.onGet('/apis', json({ groups: [] }));
  http.onGet('/api/v1', json({ resources }));
}
