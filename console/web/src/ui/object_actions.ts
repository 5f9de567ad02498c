// The detail pane's writes: the buttons (Edit, Duplicate, Delete and the copies for an object
// shown; Apply, Replace or Create, the copies and Cancel in the editor), the delete
// confirmation, and what the server answered (with each conflict of an apply and "Force
// apply"), inline. The YAML editor itself is given: the text of each action is read from it.
// The writes the access advice says the user may not make are disabled with the refusal.
import { createPermission, duplicatePermission, editPermission, objectPermission } from '../model/action_access';
import type { ConsoleState } from '../model/console_state';
import { kubectlApply, kubectlGet } from '../model/kubectl_command';
import { describeProblem, manifestYaml } from '../model/manifest';
import { terminatingNote, type EditTarget } from '../model/object_editor';
import { withoutMetadataFields } from '../model/object_fields';
import { ActionGate } from './access_gate';
import { copyText } from './clipboard';
import { h, setHidden, setText } from './dom';
import type { YamlEditor } from './yaml_editor';

function button(label: string, extra: Record<string, string> = {}): HTMLButtonElement {
  return h('button', { type: 'button', class: 'action-button', ...extra }, label);
}

export class ObjectActions {
  readonly bar: HTMLElement;
  readonly feedback: HTMLElement;
  private readonly edit = button('Edit');
  private readonly duplicate = button('Duplicate');
  private readonly remove = button('Delete', { class: 'action-button danger' });
  private readonly copyGet = button('Copy as kubectl');
  private readonly copyYaml = button('Copy YAML');
  private readonly apply = button('Apply', { class: 'action-button primary' });
  private readonly replace = button('Replace');
  private readonly create = button('Create', { class: 'action-button primary' });
  private readonly copyApply = button('Copy as kubectl apply');
  private readonly cancel = button('Cancel');
  private readonly gates = {
    edit: new ActionGate(this.edit),
    duplicate: new ActionGate(this.duplicate),
    remove: new ActionGate(this.remove),
    apply: new ActionGate(this.apply),
    replace: new ActionGate(this.replace),
    create: new ActionGate(this.create),
  };
  private readonly confirm = h('div', { class: 'confirm', role: 'alertdialog', 'aria-label': 'Confirm the delete', hidden: true });
  private readonly confirmText = h('p', {});
  private readonly confirmYes = button('Delete', { class: 'action-button danger' });
  private readonly confirmNo = button('Keep it');
  private readonly outcome = h('div', { class: 'outcome', role: 'status', hidden: true });
  private readonly copied = h('p', { class: 'copied', role: 'status', hidden: true });
  private shownOutcome: unknown;

  constructor(private readonly state: ConsoleState, private readonly editor: YamlEditor) {
    this.bar = h(
      'div',
      { class: 'action-bar', role: 'toolbar', 'aria-label': 'Object actions' },
      this.edit, this.duplicate, this.remove, this.apply, this.replace, this.create,
      this.copyGet, this.copyApply, this.copyYaml, this.cancel,
      ...Object.values(this.gates).map((gate) => gate.note),
    );
    this.confirm.append(this.confirmText, h('div', { class: 'confirm-buttons' }, this.confirmYes, this.confirmNo));
    this.feedback = h('div', { class: 'feedback' }, this.confirm, this.outcome, this.copied);
    const writes = state.editor;
    this.edit.addEventListener('click', () => {
      const target = this.target();
      const object = state.detail.state.object;
      if (target && object !== undefined) {
        writes.edit(target, object);
      }
    });
    this.duplicate.addEventListener('click', () => {
      const target = this.target();
      const object = state.detail.state.object;
      if (target && object !== undefined) {
        writes.duplicate(target, object);
      }
    });
    this.remove.addEventListener('click', () => {
      const t = state.detail.state.target;
      if (t) {
        writes.askDelete(t.kind, t.namespace, t.name, state.detail.state.object);
      }
    });
    this.confirmYes.addEventListener('click', () => {
      const t = state.detail.state.target;
      if (t) {
        void writes.confirmDelete(t.ref, t.namespace, t.name);
      }
    });
    this.confirmNo.addEventListener('click', () => writes.cancelDelete());
    this.apply.addEventListener('click', () => void writes.apply(this.editor.text, false));
    this.replace.addEventListener('click', () => void writes.replace(this.editor.text));
    this.create.addEventListener('click', () => void writes.createFrom(this.editor.text));
    this.cancel.addEventListener('click', () => writes.close());
    this.copyGet.addEventListener('click', () => {
      const t = state.detail.state.target;
      if (t) {
        void this.copy(kubectlGet(t.ref, t.namespace, t.name), 'the kubectl command');
      }
    });
    this.copyApply.addEventListener('click', () => void this.copy(kubectlApply(this.editor.text), 'the kubectl apply command'));
    this.copyYaml.addEventListener('click', () => {
      const editing = writes.state.mode !== 'closed';
      const object = state.detail.state.object;
      const text = editing ? this.editor.text : object === undefined ? '' : manifestYaml(withoutMetadataFields(object, ['managedFields']));
      void this.copy(text, 'the YAML');
    });
  }

  // The resource of the object open, as the editor needs it.
  private target(): EditTarget | undefined {
    const t = this.state.detail.state.target;
    const info = this.state.resource;
    return t ? { ref: t.ref, kind: t.kind, namespaced: info?.namespaced ?? t.namespace !== '' } : undefined;
  }

  private async copy(text: string, what: string): Promise<void> {
    const result = await copyText(text, what);
    setText(this.copied, result.message);
    this.copied.classList.toggle('error', !result.ok);
    setHidden(this.copied, false);
  }

  render(): void {
    const writes = this.state.editor.state;
    const detail = this.state.detail.state;
    const editing = writes.mode !== 'closed';
    const hasObject = detail.object !== undefined && !detail.deleted;
    const verbs = this.state.resource?.verbs ?? [];
    setHidden(this.edit, editing || !hasObject);
    setHidden(this.duplicate, editing || !hasObject || !verbs.includes('create'));
    // Once Terminating, a delete again changes nothing: the note says what holds the object.
    const terminating = terminatingNote(detail.target?.kind ?? '', detail.object) !== undefined;
    setHidden(this.remove, editing || !hasObject || terminating || !verbs.includes('delete'));
    setHidden(this.copyGet, editing || detail.target === undefined);
    setHidden(this.apply, writes.mode !== 'edit');
    setHidden(this.replace, writes.mode !== 'edit');
    setHidden(this.create, writes.mode !== 'new');
    setHidden(this.copyApply, !editing);
    setHidden(this.copyYaml, !editing && !hasObject);
    setHidden(this.cancel, !editing);
    const gates = this.gates;
    gates.edit.render(editPermission(this.state));
    gates.duplicate.render(duplicatePermission(this.state));
    gates.remove.render(objectPermission(this.state, 'delete'));
    gates.apply.render(objectPermission(this.state, 'patch'), writes.busy);
    gates.replace.render(objectPermission(this.state, 'update'), writes.busy);
    gates.create.render(createPermission(this.state), writes.busy);
    this.confirmYes.disabled = writes.busy;
    setHidden(this.confirm, writes.confirmDelete === undefined);
    setText(this.confirmText, writes.confirmDelete ?? '');
    if (writes.outcome !== this.shownOutcome) {
      this.shownOutcome = writes.outcome;
      this.renderOutcome();
      setHidden(this.copied, true);
    }
  }

  private renderOutcome(): void {
    const outcome = this.state.editor.state.outcome;
    setHidden(this.outcome, outcome === undefined);
    this.outcome.className = `outcome ${outcome?.kind ?? ''}`;
    if (!outcome) {
      this.outcome.replaceChildren();
      return;
    }
    if (outcome.kind === 'done') {
      this.outcome.replaceChildren(h('p', {}, outcome.message));
      return;
    }
    if (outcome.kind === 'invalid') {
      const items = outcome.problems.map((problem) => {
        if (problem.line === 0) {
          return h('li', {}, describeProblem(problem));
        }
        const link = h('button', { type: 'button', class: 'link-button' }, `line ${problem.line}, column ${problem.column}`);
        link.addEventListener('click', () => this.editor.goToLine(problem.line));
        return h('li', {}, link, `: ${problem.message}`);
      });
      this.outcome.replaceChildren(h('p', {}, 'The YAML cannot be sent:'), h('ul', {}, ...items));
      return;
    }
    const children: Node[] = [h('p', {}, outcome.message)];
    if (outcome.conflicts.length > 0) {
      children.push(
        h('p', {}, 'These fields are owned by other managers, with other values:'),
        h(
          'ul',
          {},
          ...outcome.conflicts.map((c) =>
            h('li', {}, h('code', {}, c.field === '' ? '(object)' : c.field), ' owned by ', h('code', {}, c.manager === '' ? c.message : c.manager)),
          ),
        ),
      );
      const force = button('Force apply', { class: 'action-button danger' });
      force.addEventListener('click', () => void this.state.editor.apply(this.editor.text, true));
      children.push(h('p', {}, force, ' takes them over with the values in the editor.'));
    }
    this.outcome.replaceChildren(...children);
  }
}
