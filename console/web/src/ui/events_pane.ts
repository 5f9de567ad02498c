// The bottom pane of the main area: the watch events of the console's feeds. Its header holds the
// counts, the type checkboxes, the kind and namespace choices (from what the log holds), pause and
// clear; below it the list (see EventListView). It has a fixed height, and collapses to its header
// alone, so nothing above it moves while events stream in.
import type { ConsoleState } from '../model/console_state';
import { LOGGED_TYPES, type LoggedEvent, type LoggedType } from '../model/event_log';
import { h, setAttr, setHidden, setText } from './dom';
import { EventListView } from './event_list_view';
import { emptyLogText, logCountText, pausedText } from './event_text';
import type { FrameScheduler } from './frame_scheduler';
import { formatCount } from './status_text';

export interface EventsActions {
  // Opens the event in the detail pane (a route).
  openEvent(event: LoggedEvent): void;
}

// A select whose options are "" (all) and the values given; rebuilt only when they change.
class ChoiceSelect {
  readonly element: HTMLSelectElement;
  // The values the options were built from; undefined before the first render.
  private shown: string | undefined;

  constructor(
    id: string,
    private readonly allText: string,
    onChange: (value: string) => void,
  ) {
    this.element = h('select', { id, class: 'events-select' });
    this.element.addEventListener('change', () => onChange(this.element.value));
  }

  render(values: readonly string[], chosen: string): void {
    const all = chosen === '' || values.includes(chosen) ? values : [...values, chosen].sort();
    const key = all.join('\n');
    if (key !== this.shown) {
      this.shown = key;
      this.element.replaceChildren(h('option', { value: '' }, this.allText), ...all.map((v) => h('option', { value: v }, v)));
    }
    if (this.element.value !== chosen) {
      this.element.value = chosen;
    }
  }
}

export class EventsPane {
  readonly element: HTMLElement;
  private readonly toggle = h('button', {
    type: 'button',
    class: 'events-toggle',
    'aria-expanded': 'true',
    'aria-controls': 'events-body',
    title: 'Hide the events',
  });
  private readonly count = h('span', { class: 'events-count' });
  private readonly paused = h('span', { class: 'events-paused', role: 'status' });
  private readonly pauseButton = h('button', { type: 'button', class: 'tool-button', 'aria-pressed': 'false' }, 'Pause');
  private readonly clearButton = h('button', { type: 'button', class: 'tool-button' }, 'Clear');
  private readonly types = new Map<LoggedType, HTMLInputElement>();
  private readonly kind: ChoiceSelect;
  private readonly namespace: ChoiceSelect;
  private readonly list: EventListView;
  private readonly body: HTMLElement;
  private collapsed = false;

  constructor(
    actions: EventsActions,
    private readonly state: ConsoleState,
    frames: FrameScheduler,
  ) {
    const history = state.history;
    this.kind = new ChoiceSelect('events-kind', 'All kinds', (kind) => history.setKind(kind));
    this.namespace = new ChoiceSelect('events-namespace', 'All namespaces', (namespace) => history.setNamespace(namespace));
    this.list = new EventListView('events-title', (event) => actions.openEvent(event), frames);
    const typeBoxes = LOGGED_TYPES.map((type) => {
      const box = h('input', { type: 'checkbox', id: `events-type-${type.toLowerCase()}` });
      box.addEventListener('change', () => history.setTypeShown(type, box.checked));
      this.types.set(type, box);
      return h('label', { class: `events-type ev-${type.toLowerCase()}` }, box, type);
    });
    const filters = h(
      'div',
      { class: 'events-filters', role: 'group', 'aria-label': 'Event filters' },
      ...typeBoxes,
      h('label', { class: 'visually-hidden', for: 'events-kind' }, 'Kind'),
      this.kind.element,
      h('label', { class: 'visually-hidden', for: 'events-namespace' }, 'Namespace'),
      this.namespace.element,
    );
    this.body = h('div', { class: 'events-body', id: 'events-body' }, filters, this.list.element);
    this.element = h(
      'section',
      { class: 'events-pane', 'aria-labelledby': 'events-title' },
      h(
        'div',
        { class: 'events-head' },
        this.toggle,
        h('h2', { class: 'events-title', id: 'events-title' }, 'Watch events'),
        this.count,
        this.paused,
        h('span', { class: 'events-tools' }, this.pauseButton, this.clearButton),
      ),
      this.body,
    );
    this.toggle.addEventListener('click', () => this.setCollapsed(!this.collapsed));
    this.pauseButton.addEventListener('click', () => history.setPaused(!history.log.paused));
    this.clearButton.addEventListener('click', () => history.clear());
    this.setCollapsed(false);
  }

  // Reads the list's layout, before anything in the frame is written.
  measure(): void {
    if (!this.collapsed) {
      this.list.measure();
    }
  }

  render(): void {
    const history = this.state.history;
    const log = history.log;
    const filter = history.filter;
    setText(this.count, logCountText(log.size, log.dropped));
    setAttr(
      this.count,
      'title',
      `At most ${formatCount(log.capacity)} events are kept, the oldest dropped first; ${formatCount(history.objectsHeld)} object versions held for diffs.`,
    );
    setText(this.paused, log.paused ? pausedText(log.held) : '');
    setHidden(this.paused, !log.paused);
    setText(this.pauseButton, log.paused ? 'Resume' : 'Pause');
    setAttr(this.pauseButton, 'aria-pressed', log.paused ? 'true' : 'false');
    this.clearButton.disabled = log.size === 0;
    for (const [type, box] of this.types) {
      box.checked = !filter.hiddenTypes.has(type);
    }
    this.kind.render(log.kinds(), filter.kind);
    this.namespace.render(log.namespaces(), filter.namespace);
    if (this.collapsed) {
      return;
    }
    const open = this.state.openEvent;
    this.list.render(history.view(), open && 'found' in open ? open.found.seq : undefined, emptyLogText(log.size, log.paused));
  }

  private setCollapsed(collapsed: boolean): void {
    this.collapsed = collapsed;
    this.element.classList.toggle('collapsed', collapsed);
    setHidden(this.body, collapsed);
    setAttr(this.toggle, 'aria-expanded', collapsed ? 'false' : 'true');
    setAttr(this.toggle, 'title', collapsed ? 'Show the events' : 'Hide the events');
    setAttr(this.toggle, 'aria-label', collapsed ? 'Show the events' : 'Hide the events');
    setText(this.toggle, collapsed ? '▸' : '▾');
    this.render();
  }
}
