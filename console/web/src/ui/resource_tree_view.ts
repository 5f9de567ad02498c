// The left pane: API groups and their resources as an ARIA tree (role tree, treeitem, group;
// aria-expanded on groups, aria-selected on the resource shown), one tab stop (a roving
// tabindex), arrow keys to move, expand and collapse, Enter to open. Each resource shows its
// object count when a live feed knows it, in a fixed-width cell. A resource the access advice
// says the user may not list is marked (✗, muted), its title and accessible description the
// refusal the server would give.
import type { Permission } from '../model/access_advice';
import { listPermission } from '../model/action_access';
import type { ConsoleState } from '../model/console_state';
import { resourceKey } from '../model/resource_ref';
import { treeSignature, type ApiResourceInfo, type ResourceTree } from '../model/resource_tree';
import { h, setAttr, setHidden, setText } from './dom';
import { formatCount } from './status_text';

export interface TreeActions {
  openResource(resource: ApiResourceInfo): void;
}

interface Item {
  readonly key: string;
  readonly element: HTMLLIElement;
  // The group's key for a resource; undefined for a group.
  readonly parent: string | undefined;
  readonly resource: ApiResourceInfo | undefined;
  readonly count: HTMLElement | undefined;
  // A resource's mark and its refusal (the item's aria-describedby), when it may not be listed.
  readonly mark: HTMLElement | undefined;
  readonly note: HTMLElement | undefined;
  readonly title: string;
}

function groupKey(name: string): string {
  return `g:${name}`;
}

function itemKey(resource: ApiResourceInfo): string {
  return `r:${resourceKey(resource)}`;
}

export class ResourceTreeView {
  readonly element: HTMLElement;
  private readonly tree = h('ul', { role: 'tree', 'aria-label': 'Resources', class: 'tree' });
  private readonly message = h('p', { class: 'pane-message', role: 'status' });
  // The refusals the items refer to, out of sight (inside an item they would join its name).
  private readonly notes = h('div', { hidden: true });
  private readonly expanded = new Set<string>(['']);
  private items: Item[] = [];
  private byKey = new Map<string, Item>();
  private shown = '';
  private active: string | undefined;
  private selectedGroupSeen: string | undefined;
  private state: ConsoleState | undefined;
  // The selection last scrolled into sight.
  private revealed: string | undefined;

  constructor(private readonly actions: TreeActions) {
    this.element = h('nav', { class: 'tree-pane', 'aria-label': 'Resources' }, this.tree, this.message, this.notes);
    this.tree.addEventListener('keydown', (event) => this.onKey(event));
    this.tree.addEventListener('click', (event) => {
      const item = this.itemOf(event.target);
      if (item) {
        this.activate(item);
      }
    });
    this.tree.addEventListener('focusin', (event) => {
      const item = this.itemOf(event.target);
      if (item) {
        this.setActive(item.key);
      }
    });
  }

  render(state: ConsoleState): void {
    this.state = state;
    const tree = state.discovery.tree;
    const selected = state.route.resource;
    // The group of the resource shown opens once, when it is first shown.
    if (selected && selected.group !== this.selectedGroupSeen) {
      this.selectedGroupSeen = selected.group;
      this.expanded.add(selected.group);
    }
    const signature = `${treeSignature(tree)}|${[...this.expanded].sort().join(',')}`;
    if (signature !== this.shown) {
      this.shown = signature;
      this.rebuild(tree);
    }
    const selectedKey = selected ? `r:${resourceKey(selected)}` : undefined;
    for (const item of this.items) {
      if (item.resource) {
        setAttr(item.element, 'aria-selected', item.key === selectedKey ? 'true' : 'false');
        const count = state.countOf(item.resource);
        setText(item.count as HTMLElement, count === undefined ? '' : formatCount(count));
        this.renderAccess(item, listPermission(state, item.resource));
      }
    }
    const selectedItem = selectedKey !== undefined ? this.byKey.get(selectedKey) : undefined;
    if (selectedItem && selectedKey !== this.revealed) {
      this.revealed = selectedKey;
      selectedItem.element.scrollIntoView({ block: 'nearest' });
    }
    if (this.active === undefined || !this.byKey.has(this.active)) {
      this.active = selectedKey !== undefined && this.byKey.has(selectedKey) ? selectedKey : this.items[0]?.key;
    }
    for (const item of this.items) {
      item.element.tabIndex = item.key === this.active ? 0 : -1;
    }
    const error = state.discovery.error;
    const text = error
      ? `Discovery failed: ${error.describe()}`
      : !state.discovery.loaded
        ? 'Discovering resources…'
        : '';
    setText(this.message, text);
    this.message.classList.toggle('error', error !== undefined);
    setHidden(this.message, text === '');
  }

  private renderAccess(item: Item, permission: Permission): void {
    const reason = permission.allowed ? '' : permission.reason;
    item.element.classList.toggle('denied', reason !== '');
    setHidden(item.mark as HTMLElement, reason === '');
    setText(item.note as HTMLElement, reason);
    setAttr(item.element, 'aria-describedby', reason === '' ? undefined : item.note?.id);
    setAttr(item.element, 'title', reason === '' ? item.title : `${item.title}\n${reason}`);
  }

  focus(): void {
    const item = this.active !== undefined ? this.byKey.get(this.active) : this.items[0];
    item?.element.focus();
  }

  private rebuild(tree: ResourceTree): void {
    const focused = this.itemOf(document.activeElement)?.key;
    this.items = [];
    this.byKey = new Map();
    this.notes.replaceChildren();
    const groups: HTMLLIElement[] = [];
    for (const group of tree.groups) {
      const key = groupKey(group.name);
      const open = this.expanded.has(group.name);
      const label = h(
        'span',
        { class: 'tree-row group-row' },
        h('span', { class: 'twisty', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
        h('span', { class: 'tree-label' }, group.displayName),
        h('span', { class: 'tree-version' }, group.version),
        ...(group.error ? [h('span', { class: 'tree-warning', title: group.error }, '!')] : []),
      );
      const element = h('li', {
        role: 'treeitem',
        tabindex: -1,
        'aria-expanded': open ? 'true' : 'false',
        'aria-level': 1,
        'data-key': key,
        title: group.error ? `${group.displayName}/${group.version}: discovery failed: ${group.error}` : `${group.displayName}/${group.version}`,
      });
      element.append(label);
      const item: Item = { key, element, parent: undefined, resource: undefined, count: undefined, mark: undefined, note: undefined, title: '' };
      this.items.push(item);
      this.byKey.set(key, item);
      if (open) {
        const children = group.resources.map((resource) => this.resourceItem(resource, key));
        element.append(h('ul', { role: 'group' }, ...children));
      }
      groups.push(element);
    }
    this.tree.replaceChildren(...groups);
    if (focused !== undefined) {
      this.byKey.get(focused)?.element.focus();
    }
  }

  private resourceItem(resource: ApiResourceInfo, parent: string): HTMLLIElement {
    const key = itemKey(resource);
    const count = h('span', { class: 'tree-count' });
    const mark = h('span', { class: 'tree-denied', 'aria-hidden': 'true', hidden: true }, '✗');
    const note = h('span', { id: `tree-note-${resourceKey(resource)}` });
    this.notes.append(note);
    const scope = resource.namespaced ? 'namespaced' : 'cluster-scoped';
    const title = `${resource.resource} (${resource.version}, ${scope})`;
    const element = h(
      'li',
      { role: 'treeitem', tabindex: -1, 'aria-level': 2, 'data-key': key, title },
      h('span', { class: 'tree-row' }, h('span', { class: 'tree-label' }, resource.kind), mark, count),
    );
    const item: Item = { key, element, parent, resource, count, mark, note, title };
    this.items.push(item);
    this.byKey.set(key, item);
    return element;
  }

  private itemOf(target: EventTarget | null): Item | undefined {
    if (!(target instanceof Element)) {
      return undefined;
    }
    const element = target.closest('[role="treeitem"]');
    const key = element?.getAttribute('data-key');
    return key ? this.byKey.get(key) : undefined;
  }

  private setActive(key: string): void {
    if (this.active === key) {
      return;
    }
    this.active = key;
    for (const item of this.items) {
      item.element.tabIndex = item.key === key ? 0 : -1;
    }
  }

  private moveTo(item: Item | undefined): void {
    if (item) {
      this.setActive(item.key);
      item.element.focus();
    }
  }

  private toggle(item: Item, open: boolean): void {
    const name = item.key.slice(2);
    if (open) {
      this.expanded.add(name);
    } else {
      this.expanded.delete(name);
    }
    // Drawn at once, so the keys that follow see the new items.
    if (this.state) {
      this.render(this.state);
    }
  }

  private activate(item: Item): void {
    if (item.resource) {
      this.actions.openResource(item.resource);
    } else {
      this.toggle(item, !this.expanded.has(item.key.slice(2)));
      this.setActive(item.key);
    }
  }

  private onKey(event: KeyboardEvent): void {
    const current = this.itemOf(event.target);
    if (!current) {
      return;
    }
    const index = this.items.indexOf(current);
    const isGroup = current.resource === undefined;
    const open = isGroup && this.expanded.has(current.key.slice(2));
    switch (event.key) {
      case 'ArrowDown':
        this.moveTo(this.items[index + 1]);
        break;
      case 'ArrowUp':
        this.moveTo(this.items[index - 1]);
        break;
      case 'Home':
        this.moveTo(this.items[0]);
        break;
      case 'End':
        this.moveTo(this.items[this.items.length - 1]);
        break;
      case 'ArrowRight':
        if (isGroup && !open) {
          this.toggle(current, true);
        } else if (isGroup) {
          this.moveTo(this.items[index + 1]);
        }
        break;
      case 'ArrowLeft':
        if (isGroup && open) {
          this.toggle(current, false);
        } else if (current.parent !== undefined) {
          this.moveTo(this.byKey.get(current.parent));
        }
        break;
      case 'Enter':
      case ' ':
        this.activate(current);
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}
