// The web console's entry point: the console state over fetch, the page, and the route from the
// URL the page was opened with.
import type { Clock } from './model/clock';
import { ConsoleState } from './model/console_state';
import { fetchHttp } from './net/fetch_http';
import { AppView } from './ui/app_view';
import { HashRouter } from './ui/router';

const browserClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const id = window.setTimeout(callback, ms);
    return () => window.clearTimeout(id);
  },
};

function main(): void {
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  const state = new ConsoleState(fetchHttp, browserClock);
  const router = new HashRouter((route) => state.applyRoute(route));
  new AppView(root, state, router);
  state.applyRoute(router.current());
  state.start();
}

main();
