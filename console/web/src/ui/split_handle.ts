// The separator between the table (with the events) and the detail pane: dragged with the mouse,
// or focused and moved with Left, Right, Home and End (an ARIA separator whose value is its
// position). The detail pane's share of the width is a CSS variable of the panes, and is
// remembered in localStorage.
import { DETAIL_SHARE_MAX, DETAIL_SHARE_MIN, parseShare, separatorPosition, shareAfterDrag, shareAfterKey } from '../model/split';
import { h, setAttr } from './dom';

const STORAGE_KEY = 'kube-sandbox.detail-share';

function stored(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function store(share: number): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, String(share));
  } catch {
    // Storage refused (a private window, a quota): the split lasts as long as the page.
  }
}

export class SplitHandle {
  readonly element: HTMLElement;
  private share: number;
  private drag: { pointer: number; startX: number; startShare: number } | undefined;

  constructor(private readonly panes: HTMLElement) {
    this.element = h('div', {
      class: 'split-handle',
      role: 'separator',
      tabindex: 0,
      'aria-orientation': 'vertical',
      'aria-label': 'Resize the detail pane',
      'aria-valuemin': separatorPosition(DETAIL_SHARE_MAX),
      'aria-valuemax': separatorPosition(DETAIL_SHARE_MIN),
      title: 'Drag, or Left and Right, to resize the detail pane',
    });
    this.share = parseShare(stored());
    this.show();
    this.element.addEventListener('keydown', (event) => {
      const share = shareAfterKey(this.share, event.key);
      if (share !== undefined) {
        this.set(share);
        event.preventDefault();
      }
    });
    this.element.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) {
        return;
      }
      this.drag = { pointer: event.pointerId, startX: event.clientX, startShare: this.share };
      this.element.setPointerCapture(event.pointerId);
      this.element.classList.add('dragging');
      event.preventDefault();
    });
    this.element.addEventListener('pointermove', (event) => {
      const drag = this.drag;
      if (drag && event.pointerId === drag.pointer) {
        this.share = shareAfterDrag(drag.startShare, drag.startX, event.clientX, this.panes.clientWidth);
        this.show();
      }
    });
    const end = (event: PointerEvent): void => {
      if (this.drag && event.pointerId === this.drag.pointer) {
        this.drag = undefined;
        this.element.classList.remove('dragging');
        store(this.share);
      }
    };
    this.element.addEventListener('pointerup', end);
    this.element.addEventListener('pointercancel', end);
  }

  private set(share: number): void {
    this.share = share;
    this.show();
    store(share);
  }

  private show(): void {
    this.panes.style.setProperty('--detail-share', `${this.share}%`);
    setAttr(this.element, 'aria-valuenow', separatorPosition(this.share));
  }
}
