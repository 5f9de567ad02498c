// Building DOM without markup strings: every text goes in through textContent, every attribute
// through setAttribute, so nothing the server sends is ever parsed as HTML.

export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;

// An element with these attributes (false and undefined leave one out, true sets it empty) and
// children (strings become text nodes).
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    setAttr(element, name, value);
  }
  element.append(...children);
  return element;
}

export function setAttr(element: Element, name: string, value: string | number | boolean | undefined): void {
  if (value === undefined || value === false) {
    element.removeAttribute(name);
  } else {
    const text = value === true ? '' : String(value);
    if (element.getAttribute(name) !== text) {
      element.setAttribute(name, text);
    }
  }
}

// Sets text only when it differs (a write would cost a layout even when equal).
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) {
    node.textContent = text;
  }
}

export function setHidden(element: HTMLElement, hidden: boolean): void {
  if (element.hidden !== hidden) {
    element.hidden = hidden;
  }
}

// Whether a key event comes from a place where typing is text (so single-key shortcuts stay out).
export function isTypingTarget(target: EventTarget | null): boolean {
  // An event from inside a shadow root (the YAML editor's) is seen from outside at its host.
  while (target instanceof Element && target.shadowRoot?.activeElement) {
    target = target.shadowRoot.activeElement;
  }
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  );
}
