// Who the page is signed in as, and signing in and out. The console's front door keeps the
// session in an HttpOnly cookie the page cannot read, so the page asks the API server itself:
// a SelfSubjectReview (POST, as kubectl auth whoami makes it) answers with the user the API sees.
// Signing in posts a bearer token to /login, where the front door asks the same question with
// that token before it opens a session; /logout ends it.
import { ApiError, errorFromResponse } from './errors';
import { ACCEPT_JSON, type Http } from './http';
import { isObject, parseJson, stringField, stringsField } from './json';

export const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

export type Identity =
  // No session: the page offers the sign-in.
  | { readonly signedIn: false }
  // A session; username is empty when the API server did not say (the user may not ask, or it
  // could not be reached).
  | { readonly signedIn: true; readonly username: string; readonly groups: readonly string[] };

const REVIEW = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

function userInfo(body: string): { username: string; groups: string[] } {
  const doc = parseJson(body);
  const status = isObject(doc) ? doc['status'] : undefined;
  const info = isObject(status) ? status['userInfo'] : undefined;
  return {
    username: stringField(info, 'username') ?? '',
    groups: stringsField(info, 'groups'),
  };
}

export class SessionClient {
  constructor(private readonly http: Http) {}

  // The page's identity. Only a 401 means signed out; any other trouble (a 403 for a user who
  // may not review itself, a network error) leaves the console to show it where it happens.
  async whoAmI(): Promise<Identity> {
    let status: number;
    let body: string;
    try {
      const response = await this.http({ method: 'POST', path: SELF_SUBJECT_REVIEWS, accept: ACCEPT_JSON, contentType: 'application/json', body: REVIEW });
      status = response.status;
      body = await response.text();
    } catch {
      return { signedIn: true, username: '', groups: [] };
    }
    if (status === 401) {
      return { signedIn: false };
    }
    return status >= 200 && status < 300 ? { signedIn: true, ...userInfo(body) } : { signedIn: true, username: '', groups: [] };
  }

  // Signs in with a bearer token (or the console's login token). Resolves with the front door's
  // message ("signed in as ..."); rejects with its refusal in its words (401 for a token the API
  // server does not know, 429 after too many failures).
  async signIn(token: string): Promise<string> {
    const trimmed = token.trim();
    if (trimmed === '') {
      throw new ApiError('status', 'Paste a bearer token first.');
    }
    const response = await this.http({ method: 'POST', path: '/login', accept: ACCEPT_JSON, contentType: 'application/json', body: JSON.stringify({ token: trimmed }) });
    const body = await response.text();
    if (response.status !== 200) {
      throw errorFromResponse(response.status, body);
    }
    return stringField(parseJson(body), 'message') ?? 'signed in';
  }

  // Ends the session (its cookies go with it).
  async signOut(): Promise<void> {
    const response = await this.http({ method: 'POST', path: '/logout', accept: ACCEPT_JSON });
    const body = await response.text();
    if (response.status !== 200) {
      throw errorFromResponse(response.status, body);
    }
  }
}
