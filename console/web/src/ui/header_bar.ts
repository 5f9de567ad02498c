// The header: the title and server version, the namespace selector, the filter box, New <Kind>
// (disabled with the server's refusal when the user may not create it).
import { createPermission } from '../model/action_access';
import type { ConsoleState } from '../model/console_state';
import type { Route } from '../model/route';
import { ActionGate } from './access_gate';
import { h, setAttr, setText } from './dom';

// Typing in the filter updates the URL (and the table) after this pause.
const FILTER_DELAY_MS = 120;
const ALL_NAMESPACES = '';

export interface HeaderActions {
  // Shows another namespace ("" for all).
  selectNamespace(namespace: string): void;
  // Filters the table (replacing the history entry: typing is not navigation).
  setFilter(filter: string): void;
  // Moves the focus to the table.
  focusTable(): void;
  // Opens the editor on a new object of the resource shown.
  newObject(): void;
}

export class HeaderBar {
  readonly element: HTMLElement;
  private readonly version = h('span', { class: 'server-version' });
  private readonly namespace = h('select', { id: 'namespace', 'aria-describedby': 'namespace-note' });
  private readonly namespaceNote = h('span', { id: 'namespace-note', class: 'visually-hidden' });
  private readonly filter = h('input', {
    id: 'filter',
    type: 'search',
    placeholder: 'Filter rows  ( / )',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-keyshortcuts': '/',
  });
  private readonly newButton = h('button', { type: 'button', class: 'action-button new-button' }, 'New');
  private readonly newGate = new ActionGate(this.newButton);
  private namespacesShown = '';
  private filterTimer: number | undefined;

  constructor(private readonly actions: HeaderActions) {
    this.element = h(
      'header',
      { class: 'top' },
      h('h1', {}, 'kube-sandbox'),
      this.version,
      h('label', { class: 'field', for: 'namespace' }, 'Namespace'),
      this.namespace,
      this.namespaceNote,
      h('label', { class: 'visually-hidden', for: 'filter' }, 'Filter rows'),
      this.filter,
      this.newButton,
      this.newGate.note,
    );
    this.newButton.addEventListener('click', () => this.actions.newObject());
    this.namespace.addEventListener('change', () => this.actions.selectNamespace(this.namespace.value));
    this.filter.addEventListener('input', () => {
      window.clearTimeout(this.filterTimer);
      this.filterTimer = window.setTimeout(() => this.flushFilter(), FILTER_DELAY_MS);
    });
    this.filter.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === 'ArrowDown') {
        this.flushFilter();
        this.actions.focusTable();
        event.preventDefault();
      } else if (event.key === 'Escape') {
        if (this.filter.value !== '') {
          this.filter.value = '';
          this.flushFilter();
        } else {
          this.actions.focusTable();
        }
        event.preventDefault();
      }
    });
  }

  focusFilter(): void {
    this.filter.focus();
    this.filter.select();
  }

  render(state: ConsoleState): void {
    const route = state.route;
    setText(this.version, state.serverVersion);
    this.renderNamespaces(state, route);
    const resource = state.resource;
    this.newGate.render(createPermission(state), !resource || !resource.verbs.includes('create'));
    setText(this.newButton, resource ? `New ${resource.kind}` : 'New');
    // The route wins over the box unless the user is typing into it.
    if (this.filterTimer === undefined && this.filter.value !== route.filter) {
      this.filter.value = route.filter;
    }
  }

  private flushFilter(): void {
    window.clearTimeout(this.filterTimer);
    this.filterTimer = undefined;
    this.actions.setFilter(this.filter.value);
  }

  private renderNamespaces(state: ConsoleState, route: Route): void {
    const names = state.namespaceNames();
    const key = names.join('\n');
    if (key !== this.namespacesShown) {
      this.namespacesShown = key;
      const options = [h('option', { value: ALL_NAMESPACES }, 'All namespaces'), ...names.map((name) => h('option', { value: name }, name))];
      this.namespace.replaceChildren(...options);
    }
    if (this.namespace.value !== route.namespace) {
      this.namespace.value = route.namespace;
    }
    const scoped = state.resource ? state.resource.namespaced : true;
    setAttr(this.namespace, 'aria-disabled', !scoped);
    this.namespace.classList.toggle('inactive', !scoped);
    const error = state.namespaces.status.error;
    setText(
      this.namespaceNote,
      !scoped ? `${state.resource?.kind ?? 'This resource'} is cluster-scoped: the namespace does not apply.` : error ? `Namespaces: ${error.describe()}` : '',
    );
    setAttr(this.namespace, 'title', this.namespaceNote.textContent ?? '');
  }
}
