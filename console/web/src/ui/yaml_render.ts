// Puts YAML text into a <pre> with keys and scalars in spans for colour. Every part is a text
// node, never markup. Very long documents go in as plain text.
import { h } from './dom';
import { splitYamlLine } from './yaml_lines';

export const MAX_COLOURED_LINES = 5000;

// One line of YAML, coloured, appended to parent (without a line break).
export function appendYamlLine(parent: DocumentFragment | HTMLElement, line: string): void {
  const parts = splitYamlLine(line);
  parent.append(parts.indent);
  if (parts.key !== '') {
    parent.append(h('span', { class: 'y-key' }, parts.key));
  }
  if (parts.value !== '') {
    parent.append(parts.kind === 'none' ? parts.value : h('span', { class: `y-${parts.kind}` }, parts.value));
  }
}

export function renderYaml(pre: HTMLElement, text: string): void {
  const lines = text.split('\n');
  if (lines.length > MAX_COLOURED_LINES) {
    pre.textContent = text;
    return;
  }
  const fragment = document.createDocumentFragment();
  lines.forEach((line, i) => {
    appendYamlLine(fragment, line);
    if (i < lines.length - 1) {
      fragment.append('\n');
    }
  });
  pre.replaceChildren(fragment);
}
