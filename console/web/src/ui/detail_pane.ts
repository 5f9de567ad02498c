// The right pane: the open object as YAML (read-only), kept current by the table's watch; a note
// when it is loading, Terminating (and what holds it), deleted, or could not be fetched (in the
// server's words). When the route names one of the object's watch events, the event instead
// (EventDetailView), or a note that it is gone from the log above the object as it is now.
import type { ConsoleState } from '../model/console_state';
import { terminatingNote } from '../model/object_editor';
import { h, setHidden, setText } from './dom';
import { EventDetailView } from './event_detail_view';
import { goneEventText } from './event_text';
import { ObjectActions } from './object_actions';
import { YamlEditor } from './yaml_editor';
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
  // The toggle of the YAML shown: the editor's YAML never holds managedFields.
  private readonly managedLabel = h('label', { for: 'show-managed' }, this.managed, ' managedFields');
  private readonly closeButton = h('button', { type: 'button', class: 'close-button', 'aria-label': 'Close the object' }, '×');
  private readonly message = h('p', { class: 'pane-message', role: 'status' });
  private readonly yaml = h('pre', { class: 'yaml', tabindex: 0, 'aria-labelledby': 'detail-title' });
  private readonly tools: HTMLElement;
  private readonly event: EventDetailView;
  private readonly editor = new YamlEditor('YAML to apply or create');
  private readonly actions: ObjectActions;
  private shownYaml = '';
  private editorGeneration = 0;

  constructor(actions: DetailActions, private readonly state: ConsoleState) {
    this.tools = h('div', { class: 'detail-tools' }, this.managedLabel, this.closeButton);
    this.event = new EventDetailView({ showCurrent: () => actions.showCurrent() });
    this.actions = new ObjectActions(state, this.editor);
    this.element = h(
      'aside',
      { class: 'detail-pane', 'aria-label': 'Object' },
      h('div', { class: 'detail-head' }, this.title, this.tools),
      this.actions.bar,
      this.actions.feedback,
      this.message,
      this.event.element,
      this.yaml,
      this.editor.element,
    );
    this.closeButton.addEventListener('click', () => actions.close());
    this.managed.addEventListener('change', () => this.state.detail.setShowManagedFields(this.managed.checked));
    this.element.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.state.detail.state.target && this.state.editor.state.mode === 'closed') {
        actions.close();
        event.preventDefault();
      }
    });
  }

  render(): void {
    const detail = this.state.detail;
    const { target, loading, error, deleted, object } = detail.state;
    const writes = this.state.editor.state;
    this.actions.render();
    setHidden(this.editor.element, writes.mode === 'closed');
    if (writes.mode !== 'closed') {
      this.renderEditor();
      return;
    }
    this.editorGeneration = 0;
    setHidden(this.tools, target === undefined);
    setHidden(this.managedLabel, false);
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
      this.showMessage(terminatingNote(target.kind, object) ?? '', false);
    }
    this.showYaml(detail.yaml());
  }

  // The editor instead of the YAML: the object's (or the new one's) text, once per opening.
  private renderEditor(): void {
    const writes = this.state.editor.state;
    const target = this.state.detail.state.target;
    setHidden(this.tools, target === undefined);
    setHidden(this.managedLabel, true);
    setHidden(this.event.element, true);
    this.showYaml('');
    const kind = writes.target?.kind ?? '';
    setText(this.title, writes.mode === 'new' ? `New ${kind}` : `Edit ${kind} ${writes.subject}`);
    this.showMessage(this.state.detail.state.deleted && writes.mode === 'edit' ? 'This object was deleted.' : '', true);
    if (writes.generation !== this.editorGeneration) {
      this.editorGeneration = writes.generation;
      this.editor.reset(writes.initialText);
      this.editor.focus();
    }
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
