// The web console's entry point: the console state over fetch, the page, and the route from the
// URL the page was opened with.
import type { Clock } from './model/clock';
import { ConsoleState } from './model/console_state';
import { SessionClient } from './model/session';
import { fetchHttp } from './net/fetch_http';
import { AppView } from './ui/app_view';
import { HashRouter } from './ui/router';
import { SignInView } from './ui/sign_in_view';
import { UserBadge } from './ui/user_badge';

const browserClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const id = window.setTimeout(callback, ms);
    return () => window.clearTimeout(id);
  },
};

// Starts over with the session as it now is; the URL (the view asked for) stays.
function restart(): void {
  window.location.reload();
}

async function main(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  const session = new SessionClient(fetchHttp);
  const identity = await session.whoAmI();
  if (!identity.signedIn) {
    const signIn = new SignInView(session, restart);
    root.replaceChildren(signIn.element);
    signIn.focus();
    return;
  }
  const state = new ConsoleState(fetchHttp, browserClock, identity.username);
  const router = new HashRouter((route) => state.applyRoute(route));
  const view = new AppView(root, state, router);
  view.addToHeader(new UserBadge(identity, session, restart).element);
  state.applyRoute(router.current());
  state.start();
}

void main();
