// The route in location.hash: navigation writes it (pushing a history entry, or replacing the
// current one while typing a filter), and the hash changing (back, forward, a pasted URL) is
// read back into the console.
import { formatRoute, parseRoute, type Route } from '../model/route';

export class HashRouter {
  constructor(private readonly onRoute: (route: Route) => void) {
    window.addEventListener('hashchange', () => this.onRoute(this.current()));
  }

  current(): Route {
    return parseRoute(window.location.hash);
  }

  // Shows route: push adds a history entry (back returns here), replace does not.
  go(route: Route, mode: 'push' | 'replace' = 'push'): void {
    const hash = formatRoute(route);
    if (hash === window.location.hash || (hash === '#/' && window.location.hash === '')) {
      return;
    }
    if (mode === 'push') {
      // Fires hashchange, which applies the route.
      window.location.hash = hash;
      return;
    }
    window.history.replaceState(window.history.state, '', hash);
    this.onRoute(route);
  }
}
