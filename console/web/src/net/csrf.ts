// The CSRF header: kube-sandbox serve sets a script-readable cookie ks_csrf_<port> next to its
// HttpOnly session cookie (named after the port, since cookies are shared by every port of a
// host), and wants its value back in X-CSRF-Token on every request that changes something. Pure
// functions of the cookie string, so they are tested without a browser.

export const CSRF_HEADER = 'X-CSRF-Token';

// The CSRF cookie's name for the console served on `port` (location.port).
export function csrfCookieName(port: string): string {
  return `ks_csrf_${port}`;
}

// The value of cookie name in a document.cookie string; undefined when absent.
export function cookieValue(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) {
      continue;
    }
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return undefined;
}

// The headers a request of this method carries for CSRF: none for GET and HEAD, else the token
// when the cookie of the console on `port` exists.
export function csrfHeaders(method: string, cookies: string, port: string): Record<string, string> {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD') {
    return {};
  }
  const token = cookieValue(cookies, csrfCookieName(port));
  return token === undefined || token === '' ? {} : { [CSRF_HEADER]: token };
}
