// The page: header, resource tree, table, events pane, the split, detail pane, in that tab order. It draws
// the console state at most once a frame after it changes, turns user actions into routes (so
// the URL always says what is shown), and holds the global keys ('/' focuses the filter).
import type { ConsoleState } from '../model/console_state';
import type { LoggedEvent } from '../model/event_log';
import type { CreatedObject } from '../model/object_editor';
import { resourceKey, sameResource } from '../model/resource_ref';
import { objectParam, type Route } from '../model/route';
import { nextSort } from '../model/table_store';
import { DetailPane } from './detail_pane';
import { h, isTypingTarget } from './dom';
import { EventsPane } from './events_pane';
import { FrameScheduler } from './frame_scheduler';
import { HeaderBar } from './header_bar';
import { ResourceTreeView } from './resource_tree_view';
import { SplitHandle } from './split_handle';
import type { HashRouter } from './router';
import { TableView } from './table_view';

// Ages in the table are redrawn this often.
const AGE_TICK_MS = 1000;

export class AppView {
  private readonly header: HeaderBar;
  private readonly tree: ResourceTreeView;
  private readonly table: TableView;
  private readonly events: EventsPane;
  private readonly detail: DetailPane;
  private readonly panes: HTMLElement;
  // Every layout read first, then the writes: nothing read after a write lays the page out again
  // within the frame.
  private readonly frames = new FrameScheduler(
    {
      measure: () => {
        this.table.measure();
        this.events.measure();
      },
      draw: () => this.render(),
    },
    (callback) => window.requestAnimationFrame(callback),
  );

  constructor(
    root: HTMLElement,
    private readonly state: ConsoleState,
    private readonly router: HashRouter,
  ) {
    this.header = new HeaderBar({
      selectNamespace: (namespace) => {
        const { object: _object, event: _event, ...rest } = this.route;
        this.go({ ...rest, namespace });
      },
      setFilter: (filter) => this.go({ ...this.route, filter }, 'replace'),
      focusTable: () => this.table.focus(),
      newObject: () => {
        const info = state.resource;
        if (info) {
          state.editor.create({ ref: info, kind: info.kind, namespaced: info.namespaced }, state.route.namespace);
        }
      },
    });
    this.tree = new ResourceTreeView({
      openResource: (resource) =>
        this.go({
          resource: { group: resource.group, version: resource.version, resource: resource.resource },
          namespace: this.route.namespace,
          filter: '',
        }),
    });
    this.table = new TableView(this.frames, {
      setCursor: (key) => this.state.setCursor(key),
      openRow: (row) => {
        const { event: _event, ...rest } = this.route;
        const object = objectParam(row.namespace, row.name, this.route.namespace);
        this.go({ ...rest, object });
      },
      sortBy: (column) => {
        const { sort: _sort, ...rest } = this.route;
        const sort = nextSort(this.route.sort, column);
        this.go(sort ? { ...rest, sort } : rest);
      },
    });
    this.events = new EventsPane({ openEvent: (event) => this.openEvent(event) }, state, this.frames);
    this.detail = new DetailPane(
      {
        close: () => {
          const { object: _object, event: _event, ...rest } = this.route;
          this.go(rest);
          this.table.focus();
        },
        showCurrent: () => {
          const { event: _event, ...rest } = this.route;
          this.go(rest);
        },
      },
      state,
    );
    this.panes = h('div', { class: 'panes' });
    const split = new SplitHandle(this.panes);
    this.panes.append(this.tree.element, this.table.element, this.events.element, split.element, this.detail.element);
    root.replaceChildren(this.header.element, this.panes);
    state.changed.subscribe(() => this.requestFrame());
    state.editor.created.subscribe((created) => this.showCreated(created));
    document.addEventListener('keydown', (event) => {
      if (event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !isTypingTarget(event.target)) {
        this.header.focusFilter();
        event.preventDefault();
      }
    });
    window.setInterval(() => this.requestFrame(), AGE_TICK_MS);
    this.requestFrame();
  }

  // Adds an element at the header's end (who is signed in).
  addToHeader(element: HTMLElement): void {
    this.header.element.append(element);
  }

  private get route(): Route {
    return this.state.route;
  }

  private go(route: Route, mode: 'push' | 'replace' = 'push'): void {
    this.router.go(route, mode);
  }

  // Opens an event in the detail pane: its object, in the table of its resource (the one shown,
  // or the one it came from), and its resourceVersion.
  private openEvent(event: LoggedEvent): void {
    if (event.type === 'BOOKMARK') {
      return;
    }
    const route = this.route;
    const shown = route.resource !== undefined && resourceKey(route.resource) === resourceKey(event.ref);
    const base: Route = shown ? route : { resource: event.ref, namespace: route.namespace, filter: '' };
    const object = objectParam(event.namespace, event.name, base.namespace);
    this.go({ ...base, object, event: event.resourceVersion });
  }

  // After a create, the URL (and so the detail pane and the cursor) names the object created,
  // in its namespace unless all namespaces are shown; the editor stays open on it.
  private showCreated(created: CreatedObject): void {
    const route = this.route;
    if (!route.resource || !sameResource(route.resource, created.ref)) {
      return;
    }
    const { object: _object, event: _event, ...rest } = route;
    const namespace = route.namespace === '' || created.namespace === '' ? route.namespace : created.namespace;
    this.go({ ...rest, namespace, object: objectParam(created.namespace, created.name, namespace) });
  }

  private requestFrame(): void {
    this.frames.requestAll();
  }

  private render(): void {
    this.header.render(this.state);
    this.tree.render(this.state);
    this.table.render(this.state);
    this.events.render();
    this.detail.render();
    // The detail pane takes room only while an object is open.
    this.panes.classList.toggle('with-detail', this.state.detail.state.target !== undefined || this.state.editor.state.mode !== 'closed');
    document.title = this.titleText();
  }

  private titleText(): string {
    const resource = this.state.resource;
    const object = this.state.detail.state.target;
    const parts = [object ? object.name : '', resource ? resource.kind : '', 'kube-sandbox'];
    return parts.filter((p) => p !== '').join(' · ');
  }
}
