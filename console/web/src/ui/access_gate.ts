// A button the access advice may disable: when the rules deny its action, it is disabled with
// the refusal the server would give as its title and its accessible description (a note kept
// out of sight, since a disabled button takes no focus and shows no tooltip to a keyboard).
import type { Permission } from '../model/access_advice';
import { h, setAttr, setText } from './dom';

let nextId = 0;

export class ActionGate {
  // The refusal, referenced by the button's aria-describedby: put it anywhere in the page.
  readonly note: HTMLElement;

  constructor(readonly button: HTMLButtonElement) {
    nextId += 1;
    this.note = h('span', { id: `access-note-${nextId}`, class: 'access-note', hidden: true });
  }

  // Enabled when the action is allowed (or not known to be denied) and nothing else holds it.
  render(permission: Permission, held = false): void {
    const reason = permission.allowed ? '' : permission.reason;
    this.button.disabled = held || reason !== '';
    this.button.classList.toggle('denied', reason !== '');
    setAttr(this.button, 'title', reason === '' ? undefined : reason);
    setAttr(this.button, 'aria-describedby', reason === '' ? undefined : this.note.id);
    setText(this.note, reason);
  }
}
