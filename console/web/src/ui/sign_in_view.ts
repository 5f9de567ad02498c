// The page without a session: how to get one. Either the URL kube-sandbox printed (the console's
// own user), or a bearer token pasted here, to use the console as that token's user (authorization
// then applies as for them). A refusal is shown in the server's words.
import { asApiError } from '../model/errors';
import type { SessionClient } from '../model/session';
import { h, setText } from './dom';

export class SignInView {
  readonly element: HTMLElement;
  private readonly token = h('textarea', {
    id: 'sign-in-token',
    rows: 4,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'sign-in-help',
  });
  private readonly submit = h('button', { type: 'submit', class: 'action-button' }, 'Sign in');
  private readonly error = h('p', { class: 'sign-in-error', role: 'alert' });

  constructor(
    session: SessionClient,
    // Called once signed in (the page then starts over, with the session).
    signedIn: () => void,
  ) {
    const form = h(
      'form',
      { class: 'sign-in', 'aria-labelledby': 'sign-in-title' },
      h('h1', { id: 'sign-in-title' }, 'kube-sandbox'),
      h(
        'p',
        { id: 'sign-in-help' },
        'Open the web console URL that kube-sandbox serve (or kube-sandbox console --web) printed: it signs you in as the console’s user. Or sign in as another user with a bearer token, e.g. from ',
        h('code', {}, 'kubectl create token NAME'),
        '; what you may see and change is then what that user may.',
      ),
      h('label', { for: 'sign-in-token' }, 'Bearer token'),
      this.token,
      h('div', { class: 'sign-in-actions' }, this.submit),
      this.error,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit.disabled = true;
      setText(this.error, '');
      session.signIn(this.token.value).then(
        () => signedIn(),
        (error: unknown) => {
          this.submit.disabled = false;
          setText(this.error, asApiError(error).describe());
          this.token.focus();
        },
      );
    });
    this.element = h('main', { class: 'sign-in-page' }, form);
  }

  focus(): void {
    this.token.focus();
  }
}
