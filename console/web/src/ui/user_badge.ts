// The header's note of who the console acts as (the API server's name for the session's user)
// and the Sign out button.
import { asApiError } from '../model/errors';
import type { Identity, SessionClient } from '../model/session';
import { h, setText } from './dom';

export class UserBadge {
  readonly element: HTMLElement;

  constructor(identity: Identity, session: SessionClient, signedOut: () => void) {
    const name = identity.signedIn && identity.username !== '' ? identity.username : 'unknown user';
    const groups = identity.signedIn ? identity.groups.join(', ') : '';
    const user = h('span', { class: 'user-name', title: groups !== '' ? `${name}\ngroups: ${groups}` : name }, name);
    const button = h('button', { type: 'button', class: 'action-button sign-out' }, 'Sign out');
    button.addEventListener('click', () => {
      button.disabled = true;
      session.signOut().then(signedOut, (error: unknown) => {
        button.disabled = false;
        setText(button, 'Sign out');
        button.title = asApiError(error).describe();
      });
    });
    this.element = h('span', { class: 'user-badge', 'aria-label': `Signed in as ${name}` }, user, button);
  }
}
