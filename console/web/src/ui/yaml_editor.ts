// The YAML editor: CodeMirror 6 with YAML highlighting, line numbers, undo history and the
// default keys (Tab is left to move the focus, as everywhere on the page; Enter indents as
// yaml_indent.ts says). CodeMirror adds its
// styles at run time: into a <style> element when it lives in the document, which the page's CSP
// refuses, but as a constructed style sheet (CSSOM, which the CSP allows) when it lives in a
// shadow root. So the editor lives in one, and its theme is given here in the page's colours
// (CSS variables reach into it).
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorSelection, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { h } from './dom';
import { yamlIndentAfter } from './yaml_indent';

// The colours of the read-only YAML (yaml_render.ts), light or dark with the page.
const highlight = HighlightStyle.define([
  { tag: [tags.definition(tags.propertyName), tags.propertyName], color: 'var(--y-key)' },
  { tag: [tags.string, tags.content, tags.special(tags.string)], color: 'var(--y-string)' },
  { tag: tags.number, color: 'var(--y-number)' },
  { tag: [tags.bool, tags.null, tags.keyword, tags.atom], color: 'var(--y-literal)' },
  { tag: [tags.comment, tags.meta, tags.punctuation, tags.separator], color: 'var(--muted)' },
  { tag: tags.invalid, color: 'var(--error-fg)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', color: 'var(--fg)', backgroundColor: 'var(--bg)', fontSize: '12px' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-2px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.45' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--row-hover)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'var(--cursor-bg)' },
});

// Enter: a new line indented as yamlIndentAfter says, in place of the selection.
function newlineAndIndent(view: EditorView): boolean {
  view.dispatch(
    view.state.changeByRange((range) => {
      const line = view.state.doc.lineAt(range.from);
      const insert = `\n${yamlIndentAfter(line.text.slice(0, range.from - line.from))}`;
      return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
    }),
    { scrollIntoView: true, userEvent: 'input' },
  );
  return true;
}

export class YamlEditor {
  // The host of the shadow root the editor lives in.
  readonly element: HTMLElement;
  private readonly view: EditorView;

  constructor(label: string) {
    this.element = h('div', { class: 'yaml-editor' });
    const root = this.element.attachShadow({ mode: 'open' });
    this.view = new EditorView({ state: this.state(''), root });
    this.view.contentDOM.setAttribute('aria-label', label);
    root.append(this.view.dom);
  }

  private state(text: string): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(highlight),
        yaml(),
        theme,
        EditorState.tabSize.of(2),
        keymap.of([{ key: 'Enter', run: newlineAndIndent }, ...defaultKeymap, ...historyKeymap]),
      ],
    });
  }

  // Starts over with this text (and an empty undo history).
  reset(text: string): void {
    this.view.setState(this.state(text));
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  focus(): void {
    this.view.focus();
  }

  // Puts the cursor at the start of a line (1-based) and scrolls to it.
  goToLine(line: number): void {
    const doc = this.view.state.doc;
    const at = doc.line(Math.min(Math.max(line, 1), doc.lines)).from;
    this.view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
    this.view.focus();
  }
}
