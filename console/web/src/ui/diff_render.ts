// Puts the lines of a structural diff into an element: one block per line, its mark in the gutter
// (+ added, - removed, ~ changed), the YAML coloured as in the object view, a changed scalar's
// old value after it, and a folded value's size. Text nodes only, never markup.
import type { DiffLine, DiffMark } from '../model/json_diff';
import { formatCount } from './status_text';
import { h } from './dom';
import { appendYamlLine, MAX_COLOURED_LINES } from './yaml_render';

const GUTTER: Record<DiffMark, string> = { same: ' ', added: '+', removed: '-', changed: '~' };
// What a screen reader hears for the gutter.
const SPOKEN: Record<DiffMark, string> = { same: '', added: 'added: ', removed: 'removed: ', changed: 'changed: ' };

function lineElement(line: DiffLine, coloured: boolean): HTMLElement {
  const element = h('div', { class: `d-line d-${line.mark}` });
  element.append(h('span', { class: 'd-mark', 'aria-hidden': 'true' }, GUTTER[line.mark]));
  if (SPOKEN[line.mark] !== '') {
    element.append(h('span', { class: 'visually-hidden' }, SPOKEN[line.mark]));
  }
  const body = h('span', { class: 'd-text' });
  if (coloured) {
    appendYamlLine(body, `${line.indent}${line.text}`);
  } else {
    body.textContent = `${line.indent}${line.text}`;
  }
  element.append(body);
  if (line.was !== undefined) {
    element.append(h('span', { class: 'd-was' }, `was ${line.was}`));
  }
  if (line.folded !== undefined) {
    element.append(h('span', { class: 'd-folded' }, `${formatCount(line.folded)} unchanged ${line.folded === 1 ? 'line' : 'lines'}`));
  }
  return element;
}

export function renderDiff(container: HTMLElement, lines: readonly DiffLine[]): void {
  const coloured = lines.length <= MAX_COLOURED_LINES;
  const fragment = document.createDocumentFragment();
  for (const line of lines) {
    fragment.append(lineElement(line, coloured));
  }
  container.replaceChildren(fragment);
}
