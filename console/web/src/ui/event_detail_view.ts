// A watch event in the detail pane: its type, resourceVersion and time; two tabs, the object as of
// the event (YAML) and the diff to the version before (structural, noise hidden and unchanged
// parts folded unless unticked); a note when there is no version before to compare with.
import type { LoggedEvent } from '../model/event_log';
import { diffObjects, type ObjectDiff } from '../model/json_diff';
import { objectYaml } from '../model/yaml_view';
import { renderDiff } from './diff_render';
import { h, setAttr, setHidden, setText } from './dom';
import { diffSummary, eventSummary, missingDiffText } from './event_text';
import { renderYaml } from './yaml_render';

export type EventTab = 'object' | 'diff';

export interface EventDetailActions {
  // Leaves the event for the object as it is now.
  showCurrent(): void;
}

export class EventDetailView {
  readonly element: HTMLElement;
  private readonly summary = h('span', { class: 'event-summary' });
  private readonly tabs: Record<EventTab, HTMLButtonElement> = {
    object: h('button', { type: 'button', role: 'tab', id: 'event-tab-object', 'aria-controls': 'event-object' }, 'Object'),
    diff: h('button', { type: 'button', role: 'tab', id: 'event-tab-diff', 'aria-controls': 'event-diff' }, 'Diff'),
  };
  private readonly noise = h('input', { type: 'checkbox', id: 'diff-hide-noise' });
  private readonly fold = h('input', { type: 'checkbox', id: 'diff-fold' });
  private readonly diffTools: HTMLElement;
  private readonly note = h('p', { class: 'pane-message', role: 'status' });
  private readonly yaml = h('pre', { class: 'yaml', id: 'event-object', role: 'tabpanel', tabindex: 0, 'aria-labelledby': 'event-tab-object' });
  private readonly diff = h('div', { class: 'diff', id: 'event-diff', role: 'tabpanel', tabindex: 0, 'aria-labelledby': 'event-tab-diff' });
  // The tab chosen by the user; until then, the diff when there is one.
  private chosen: EventTab | undefined;
  private hideNoise = true;
  private foldUnchanged = true;
  private shownYaml: { seq: number; managed: boolean } | undefined;
  private shownDiff: { seq: number; hideNoise: boolean; fold: boolean; diff: ObjectDiff } | undefined;
  private current: { event: LoggedEvent; managed: boolean } | undefined;

  constructor(actions: EventDetailActions) {
    const now = h('button', { type: 'button', class: 'tool-button', title: 'Show the object as it is now' }, 'Now');
    this.diffTools = h(
      'span',
      { class: 'diff-tools' },
      h('label', { for: 'diff-hide-noise' }, this.noise, ' hide noise'),
      h('label', { for: 'diff-fold' }, this.fold, ' fold'),
    );
    const tablist = h('span', { class: 'tabs', role: 'tablist', 'aria-label': 'Event view' }, this.tabs.object, this.tabs.diff);
    this.element = h(
      'div',
      { class: 'event-detail' },
      h('div', { class: 'event-bar' }, this.summary, now),
      h('div', { class: 'event-bar' }, tablist, this.diffTools),
      this.note,
      this.yaml,
      this.diff,
    );
    setAttr(this.noise, 'title', 'Leave out metadata.managedFields, resourceVersion and generation');
    setAttr(this.fold, 'title', 'Show unchanged maps, lists and text on one line');
    now.addEventListener('click', () => actions.showCurrent());
    for (const tab of ['object', 'diff'] as const) {
      this.tabs[tab].addEventListener('click', () => this.choose(tab));
    }
    tablist.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft' || event.key === 'ArrowRight' || event.key === 'Home' || event.key === 'End') {
        const next: EventTab = event.key === 'ArrowLeft' || event.key === 'Home' ? 'object' : 'diff';
        this.choose(next);
        this.tabs[next].focus();
        event.preventDefault();
      }
    });
    this.noise.addEventListener('change', () => {
      this.hideNoise = this.noise.checked;
      this.redraw();
    });
    this.fold.addEventListener('change', () => {
      this.foldUnchanged = this.fold.checked;
      this.redraw();
    });
  }

  // Shows an event; managed: managedFields in the object's YAML.
  render(event: LoggedEvent, managed: boolean): void {
    this.current = { event, managed };
    const summary = eventSummary(event);
    setText(this.summary, summary);
    setAttr(this.summary, 'title', summary);
    this.summary.className = `event-summary ev-${event.type.toLowerCase()}`;
    const missing = missingDiffText(event);
    const tab = this.chosen ?? (missing === undefined ? 'diff' : 'object');
    for (const name of ['object', 'diff'] as const) {
      setAttr(this.tabs[name], 'aria-selected', name === tab ? 'true' : 'false');
      setAttr(this.tabs[name], 'tabindex', name === tab ? 0 : -1);
    }
    this.noise.checked = this.hideNoise;
    this.fold.checked = this.foldUnchanged;
    setHidden(this.diffTools, tab !== 'diff' || missing !== undefined);
    setHidden(this.yaml, tab !== 'object' || event.object === null);
    setHidden(this.diff, tab !== 'diff' || missing !== undefined);
    if (tab === 'object') {
      this.showNote(event.object === null ? (missingDiffText(event) ?? '') : '');
      this.showObject(event, managed);
    } else if (missing !== undefined) {
      this.showNote(missing);
    } else {
      this.showDiff(event);
    }
  }

  private choose(tab: EventTab): void {
    this.chosen = tab;
    this.redraw();
  }

  private redraw(): void {
    if (this.current) {
      this.render(this.current.event, this.current.managed);
    }
  }

  private showNote(text: string): void {
    setText(this.note, text);
    setHidden(this.note, text === '');
  }

  private showObject(event: LoggedEvent, managed: boolean): void {
    const shown = this.shownYaml;
    if (event.object === null || (shown && shown.seq === event.seq && shown.managed === managed)) {
      return;
    }
    this.shownYaml = { seq: event.seq, managed };
    renderYaml(this.yaml, objectYaml(event.object, { showManagedFields: managed }));
    this.yaml.scrollTop = 0;
  }

  private showDiff(event: LoggedEvent): void {
    const shown = this.shownDiff;
    if (shown && shown.seq === event.seq && shown.hideNoise === this.hideNoise && shown.fold === this.foldUnchanged) {
      this.showNote(diffSummary(shown.diff, this.hideNoise));
      return;
    }
    const diff = diffObjects(event.previous, event.object, { hideNoise: this.hideNoise, foldUnchanged: this.foldUnchanged });
    this.shownDiff = { seq: event.seq, hideNoise: this.hideNoise, fold: this.foldUnchanged, diff };
    this.showNote(diffSummary(diff, this.hideNoise));
    renderDiff(this.diff, diff.lines);
    if (shown?.seq !== event.seq) {
      this.diff.scrollTop = 0;
    }
  }
}
