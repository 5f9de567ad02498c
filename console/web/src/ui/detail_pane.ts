// The right pane: the open object as YAML (read-only), kept current by the table's watch; a note
// when it is loading, deleted, or could not be fetched (in the server's words). When the route
// names one of the object's watch events, the event instead (EventDetailView), or a note that it
// is gone from the log above the object as it is now.
import type { ConsoleState } from '../model/console_state';
import { h, setHidden, setText } from './dom';
import { EventDetailView } from './event_detail_view';
import { goneEventText } from './event_text';
import { renderYaml } from './yaml_render';

export interface DetailActions {
  close(): void;
  // Leaves the event open for the object as it is now.
  showCurrent(): void;
}

export class DetailPane {
  readonly element: HTMLElement;
  private readonly title = h('h2', { class: 'detail-title', id: 'detail-title' });
  private readonly managed = h('input', { type: 'checkbox', id: 'show-managed' });
  private readonly closeButton = h('button', { type: 'button', class: 'close-button', 'aria-label': 'Close the object' }, '×');
  private readonly message = h('p', { class: 'pane-message', role: 'status' });
  private readonly yaml = h('pre', { class: 'yaml', tabindex: 0, 'aria-labelledby': 'detail-title' });
  private readonly tools: HTMLElement;
  private readonly event: EventDetailView;
  private shownYaml = '';

  constructor(actions: DetailActions, private readonly state: ConsoleState) {
    this.tools = h('div', { class: 'detail-tools' }, h('label', { for: 'show-managed' }, this.managed, ' managedFields'), this.closeButton);
    this.event = new EventDetailView({ showCurrent: () => actions.showCurrent() });
    this.element = h(
      'aside',
      { class: 'detail-pane', 'aria-label': 'Object' },
      h('div', { class: 'detail-head' }, this.title, this.tools),
      this.message,
      this.event.element,
      this.yaml,
    );
    this.closeButton.addEventListener('click', () => actions.close());
    this.managed.addEventListener('change', () => this.state.detail.setShowManagedFields(this.managed.checked));
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.state.detail.state.target) {
        actions.close();
        event.preventDefault();
      }
    });
  }

  render(): void {
    const detail = this.state.detail;
    const { target, loading, error, deleted, object } = detail.state;
    setHidden(this.tools, target === undefined);
    if (!target) {
      setHidden(this.event.element, true);
      setText(this.title, '');
      this.showMessage('', false);
      this.showYaml('');
      return;
    }
    const where = target.namespace === '' ? target.name : `${target.namespace}/${target.name}`;
    setText(this.title, `${target.kind} ${where}`);
    this.managed.checked = detail.showManagedFields;
    const open = this.state.openEvent;
    setHidden(this.event.element, !open || !('found' in open));
    if (open && 'found' in open) {
      this.showMessage('', false);
      this.showYaml('');
      this.event.render(open.found, detail.showManagedFields);
      return;
    }
    const gone = open ? `${goneEventText(open.missing, target.kind, this.state.history.log.capacity)} ` : '';
    if (error) {
      this.showMessage(`${gone}Could not get ${target.kind} ${where}: ${error.describe()}`, true);
    } else if (gone !== '') {
      this.showMessage(gone.trim(), true);
    } else if (deleted) {
      this.showMessage('This object was deleted; its last version is shown.', true);
    } else if (loading && object === undefined) {
      this.showMessage('Loading…', false);
    } else {
      this.showMessage('', false);
    }
    this.showYaml(detail.yaml());
  }

  private showMessage(text: string, isError: boolean): void {
    setText(this.message, text);
    this.message.classList.toggle('error', isError);
    setHidden(this.message, text === '');
  }

  private showYaml(text: string): void {
    setHidden(this.yaml, text === '');
    if (text === this.shownYaml) {
      return;
    }
    this.shownYaml = text;
    renderYaml(this.yaml, text);
  }
}
