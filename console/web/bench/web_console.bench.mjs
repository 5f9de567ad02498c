// The web console's performance in a real browser: Debian's Chromium, headless, driven by
// playwright-core, against a running `kube-sandbox serve` that holds many ConfigMaps
// (tests/bench/run-web-console-bench.sh starts it and sends the patches).
//
//   KS_WEB_LOGIN=<web>login?token=<token> KS_BENCH_DIR=<dir> KS_BENCH_SECONDS=30 \
//     KS_BENCH_RATE=100 KS_BENCH_UPDATES=3000 node bench/web_console.bench.mjs
//
// It measures, in one page:
// - the deep link to ConfigMaps in all namespaces opened cold: the time from navigation until
//   the first data rows are in the DOM, and until the footer says the list is complete (the
//   row count, and the feed live);
// - scrolling the table continuously (the grid's scrollTop moved every animation frame, down and
//   back at the ends) for KS_BENCH_SECONDS with nothing changing, then again while the patches
//   arrive as watch events: it writes <dir>/load.start, the script sends the patches and writes
//   <dir>/load.end once they are all answered. Frame times are the deltas between the
//   timestamps of successive requestAnimationFrame callbacks; Chrome's trace of each stretch
//   (CDP Tracing) gives the page's main-thread tasks;
// - the JS heap (CDP Runtime.getHeapUsage, after a garbage collection).
// It prints a Markdown report on stdout. Every wait is bounded; a failure ends with status 1.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const LOGIN = process.env.KS_WEB_LOGIN;
const DIR = process.env.KS_BENCH_DIR;
const SECONDS = Number(process.env.KS_BENCH_SECONDS ?? 30);
const RATE = Number(process.env.KS_BENCH_RATE ?? 100);
const UPDATES = Number(process.env.KS_BENCH_UPDATES ?? RATE * SECONDS);
const CHROMIUM = process.env.KS_CHROMIUM ?? '/usr/bin/chromium';
// When set, each stretch's trace is kept there (list.trace.json, idle.trace.json,
// load.trace.json), to open in Chrome's Performance panel.
const TRACE_DIR = process.env.KS_BENCH_TRACE_DIR;
// When set, each stretch also records a JavaScript CPU profile there (list.cpuprofile,
// idle.cpuprofile, load.cpuprofile; CDP Profiler, sampling every 200 µs), which slows the page
// a little.
const PROFILE_DIR = process.env.KS_BENCH_PROFILE_DIR;
const VIEWPORT = { width: 1440, height: 900 };
const ROW_HEIGHT = 24;
const FRAME_BUDGET_MS = 1000 / 60;
const LIST_TIMEOUT_MS = 300_000;
const TRACE_CATEGORIES = ['-*', 'toplevel', 'devtools.timeline', 'v8', 'blink.user_timing'].join(',');

if (!LOGIN || !DIR || !(SECONDS > 0) || !(RATE > 0)) {
  console.error('KS_WEB_LOGIN, KS_BENCH_DIR, KS_BENCH_SECONDS and KS_BENCH_RATE must be set');
  process.exit(2);
}
const WEB = LOGIN.slice(0, LOGIN.indexOf('login?'));
const DEEP_LINK = `${WEB}#/r/core/v1/configmaps`;

// Runs in every document before its scripts: notes (performance.now(), so from the navigation's
// start) when the first data row is in the table's DOM, and when the footer says the list is
// complete and live.
function watchTable() {
  const marks = { firstRows: undefined, complete: undefined, rowsText: '' };
  window.__benchMarks = marks;
  const check = () => {
    if (marks.firstRows === undefined && document.querySelector('.table-pane .grid-body .row:not([hidden]) [role="rowheader"]')?.textContent) {
      marks.firstRows = performance.now();
    }
    const feed = document.querySelector('.table-pane .feed-info');
    const rows = document.querySelector('.table-pane .rows-info');
    if (marks.complete === undefined && feed?.textContent?.startsWith('Live') && rows?.textContent) {
      marks.complete = performance.now();
      marks.rowsText = rows.textContent;
    }
    if (marks.firstRows !== undefined && marks.complete !== undefined) {
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  document.addEventListener('DOMContentLoaded', () => {
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    check();
  });
}

// Runs in the page: moves the grid's scrollTop by stepPx every animation frame (turning at the
// ends) until window.__benchStop or maxMs; resolves to the deltas between frame timestamps. The
// scroll range is read once, so the driver itself forces no layout.
function scrollStretch({ stepPx, maxMs }) {
  return new Promise((resolve, reject) => {
    const grid = document.querySelector('.table-pane [role="grid"]');
    if (!grid) {
      reject(new Error('no grid'));
      return;
    }
    const max = grid.scrollHeight - grid.clientHeight;
    let position = grid.scrollTop;
    let direction = position >= max ? -1 : 1;
    const deltas = [];
    let last;
    let start;
    window.__benchStop = false;
    const frame = (time) => {
      if (last !== undefined) {
        deltas.push(time - last);
      }
      last = time;
      start ??= time;
      if (window.__benchStop || time - start >= maxMs) {
        resolve(deltas);
        return;
      }
      position += direction * stepPx;
      if (position >= max || position <= 0) {
        position = Math.min(Math.max(position, 0), max);
        direction = -direction;
      }
      grid.scrollTop = position;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) {
    return Number.NaN;
  }
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

const ms = (value) => value.toFixed(1);
const mib = (bytes) => (bytes / 1048576).toFixed(1);

async function heapAfterGc(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
  return { usedSize, totalSize };
}

// Chrome's trace between startTrace and stopTrace, as its list of events (and the CPU profile
// when asked for).
async function startTrace(cdp) {
  if (PROFILE_DIR) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await cdp.send('Tracing.start', { categories: TRACE_CATEGORIES, transferMode: 'ReturnAsStream' });
}

async function stopTrace(cdp, name) {
  if (PROFILE_DIR) {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
  }
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await complete;
  const parts = [];
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
    parts.push(chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data);
    if (chunk.eof) {
      break;
    }
  }
  await cdp.send('IO.close', { handle: stream });
  const text = parts.join('');
  if (TRACE_DIR) {
    writeFileSync(join(TRACE_DIR, `${name}.trace.json`), text);
  }
  const parsed = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

// The main thread of the console's renderer in a trace: its tasks' durations and CPU times (ms;
// a frame's rendering, from the animation frame callbacks to paint, is one task) and the time
// spent in the timeline's events by name (nested events overlap, so these do not add up).
function mainThreadOf(events) {
  const started = events.find((e) => e.name === 'TracingStartedInBrowser');
  const frames = started?.args?.data?.frames ?? [];
  const pid = frames.find((f) => typeof f.url === 'string' && f.url.startsWith(WEB))?.processId;
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && (pid === undefined || e.pid === pid));
  // Without the page's process in the trace, the busiest renderer is the page's.
  let chosen;
  for (const main of mains) {
    const tasks = [];
    const cpu = [];
    const byName = new Map();
    for (const e of events) {
      if (e.pid !== main.pid || e.tid !== main.tid || e.ph !== 'X' || typeof e.dur !== 'number') {
        continue;
      }
      if (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') {
        tasks.push(e.dur / 1000);
        cpu.push((e.tdur ?? e.dur) / 1000);
      } else {
        byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
      }
    }
    const busy = tasks.reduce((a, b) => a + b, 0);
    if (!chosen || busy > chosen.busy) {
      const top = [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
      chosen = { tasks, cpu, top, busy, cpuBusy: cpu.reduce((a, b) => a + b, 0) };
    }
  }
  return chosen;
}

function frameRow(name, deltas, trace, seconds) {
  // Frames come on vsyncs: a delta is 16.7 ms give or take the timer's jitter, or a multiple of
  // it when frames were missed, so a frame over budget is one over one and a half vsyncs.
  const over = deltas.filter((d) => d > FRAME_BUDGET_MS * 1.5).length;
  const tasks = trace?.tasks ?? [];
  const cpu = trace?.cpu ?? [];
  const share = (total) => `${((total / (seconds * 1000)) * 100).toFixed(0)}%`;
  return (
    `| ${name} | ${deltas.length} | ${(deltas.length / seconds).toFixed(1)} | ${ms(percentile(deltas, 50))} / ` +
    `${ms(percentile(deltas, 99))} / ${ms(Math.max(...deltas))} | ${over} | ` +
    `${ms(percentile(tasks, 99))} / ${ms(Math.max(0, ...tasks))} | ${ms(percentile(cpu, 99))} / ${ms(Math.max(0, ...cpu))} | ` +
    `${tasks.filter((t) => t > FRAME_BUDGET_MS).length} | ${share(trace?.busy ?? 0)} / ${share(trace?.cpuBusy ?? 0)} |`
  );
}

async function until(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(watchTable);
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const cdp = await context.newCDPSession(page);

  // Sign in (the cookie), then open the deep link cold.
  await page.goto(LOGIN, { timeout: 30_000 });
  await page.waitForURL((url) => url.href.startsWith(WEB) && !url.href.includes('login?'), { timeout: 30_000 });
  await page.goto('about:blank');
  // The listing is traced (and profiled) only when the trace or the profile is kept: tracing
  // slows it.
  const traceListing = TRACE_DIR !== undefined || PROFILE_DIR !== undefined;
  if (traceListing) {
    await startTrace(cdp);
  }
  await page.goto(DEEP_LINK, { waitUntil: 'commit', timeout: 30_000 });
  await page.waitForFunction(() => window.__benchMarks?.complete !== undefined, undefined, { timeout: LIST_TIMEOUT_MS, polling: 250 });
  if (traceListing) {
    await stopTrace(cdp, 'list');
  }
  const marks = await page.evaluate(() => window.__benchMarks);
  const rowCount = Number(marks.rowsText.replace(/[^0-9]/g, ''));
  await page.waitForTimeout(1000);
  const heapListed = await heapAfterGc(cdp);

  const stepPx = Math.ceil(rowCount / (60 * SECONDS)) * ROW_HEIGHT;
  console.error(`web-console-bench: ${rowCount} rows; scrolling ${stepPx / ROW_HEIGHT} rows a frame, nothing changing`);
  await startTrace(cdp);
  const idleStart = Date.now();
  const idle = await page.evaluate(scrollStretch, { stepPx, maxMs: SECONDS * 1000 });
  const idleSeconds = (Date.now() - idleStart) / 1000;
  const idleTrace = mainThreadOf(await stopTrace(cdp, 'idle'));
  const heapIdle = await heapAfterGc(cdp);

  console.error(`web-console-bench: scrolling while ${UPDATES} patches arrive`);
  await startTrace(cdp);
  const loadStart = Date.now();
  const loading = page.evaluate(scrollStretch, { stepPx, maxMs: (SECONDS * 3 + 60) * 1000 });
  writeFileSync(join(DIR, 'load.start'), `${loadStart}\n`);
  await until('the patches to be sent (load.end)', () => existsSync(join(DIR, 'load.end')), (SECONDS * 3 + 60) * 1000);
  await page.evaluate(() => {
    window.__benchStop = true;
  });
  const load = await loading;
  const loadSeconds = (Date.now() - loadStart) / 1000;
  const loadTrace = mainThreadOf(await stopTrace(cdp, 'load'));
  // Every patch is one MODIFIED event in the events pane's log (its size plus those dropped).
  let seen = 0;
  await until(
    `the events pane to count ${UPDATES} events`,
    async () => {
      const text = (await page.locator('.events-count').textContent()) ?? '';
      seen = text.split('·').reduce((sum, part) => sum + Number(part.replace(/[^0-9]/g, '') || 0), 0);
      return seen >= UPDATES;
    },
    60_000,
  );
  const heapLoad = await heapAfterGc(cdp);
  if (pageErrors.length > 0) {
    throw new Error(`errors in the page: ${pageErrors.join('; ')}`);
  }

  const version = browser.version();
  console.log(`Web console in Chromium ${version} (headless, --disable-gpu: software painting), ${VIEWPORT.width}x${VIEWPORT.height}`);
  console.log('');
  console.log(`ConfigMaps in all namespaces, opened cold from the deep link (${rowCount} rows):`);
  console.log(`- first data rows in the DOM: ${ms(marks.firstRows)} ms after navigation start`);
  console.log(`- the list complete and live ("${marks.rowsText}"): ${ms(marks.complete)} ms`);
  console.log('');
  console.log(
    `Scrolling ${stepPx / ROW_HEIGHT} rows (${stepPx} px) a frame. Frame times: deltas of requestAnimationFrame ` +
      "timestamps in the page; main-thread tasks: Chrome's trace (CDP Tracing, RunTask on the renderer's main thread; " +
      'a frame is one task, from its animation frame callbacks to paint; CPU is the thread time of each).',
  );
  console.log('');
  console.log(
    '| stretch | frames | frames/s | frame p50 / p99 / max ms | frames > 16.7 ms (a vsync missed) | ' +
      'main-thread task p99 / max ms | task CPU p99 / max ms | tasks > 16.7 ms | main thread busy / CPU |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(frameRow('scrolling, nothing changing', idle, idleTrace, idleSeconds));
  console.log(frameRow(`scrolling, ${RATE} patches/s (${UPDATES} MODIFIED events, ${seen} logged)`, load, loadTrace, loadSeconds));
  console.log('');
  for (const [name, trace] of [
    ['nothing changing', idleTrace],
    ['with events', loadTrace],
  ]) {
    const top = (trace?.top ?? []).map(([event, total]) => `${event} ${ms(total)}`).join(', ');
    console.log(`Main thread by trace event, ${name} (ms in all, nested events overlap): ${top}`);
  }
  console.log('');
  console.log(
    `JS heap used after GC: ${mib(heapListed.usedSize)} MiB listed, ${mib(heapIdle.usedSize)} MiB after scrolling, ` +
      `${mib(heapLoad.usedSize)} MiB after the events (heap size ${mib(heapLoad.totalSize)} MiB)`,
  );
} catch (error) {
  console.error(`web-console-bench: ${error.message}`);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
