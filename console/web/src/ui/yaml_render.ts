// Puts YAML text into a <pre> with keys and scalars in spans for colour. Every part is a text
// node, never markup. Very long documents go in as plain text.
import { h } from './dom';
import { splitYamlLine } from './yaml_lines';

const MAX_COLOURED_LINES = 5000;

export function renderYaml(pre: HTMLElement, text: string): void {
  const lines = text.split('\n');
  if (lines.length > MAX_COLOURED_LINES) {
    pre.textContent = text;
    return;
  }
  const fragment = document.createDocumentFragment();
  lines.forEach((line, i) => {
    const parts = splitYamlLine(line);
    fragment.append(parts.indent);
    if (parts.key !== '') {
      fragment.append(h('span', { class: 'y-key' }, parts.key));
    }
    if (parts.value !== '') {
      fragment.append(parts.kind === 'none' ? parts.value : h('span', { class: `y-${parts.kind}` }, parts.value));
    }
    if (i < lines.length - 1) {
      fragment.append('\n');
    }
  });
  pre.replaceChildren(fragment);
}
