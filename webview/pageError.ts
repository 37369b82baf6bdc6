/**
 * The pager's error box: the host's message for people (chosen by the engine's code), and for the
 * errors a person can act on the way out (a mid-character offset: the nearest boundaries either side;
 * an offset past the end: the last page). `data-code` carries the engine's code for tests and styles.
 */
import * as l10n from '@vscode/l10n';
import { button, h, uid } from './dom';
import { num } from './format';
import { HostError } from './ipc';

export interface PageErrorActions {
  go(offset: number): void;
  end(): void;
}

export class PageErrorBox {
  readonly element = h('div', { className: 'page-error', attrs: { role: 'alert', hidden: true } });

  constructor(private readonly actions: PageErrorActions) {
    this.element.id = uid('offset-error');
  }

  show(error: unknown): void {
    const box = this.element;
    box.hidden = false;
    const message = error instanceof Error ? error.message : String(error);
    box.replaceChildren(h('p', { className: 'error-message' }, message));
    if (error instanceof HostError && error.code === 'MID_CHARACTER_OFFSET') {
      const before = Number(error.details.before);
      const after = Number(error.details.after);
      box.dataset.code = error.code;
      box.appendChild(
        h(
          'div',
          { className: 'boundaries' },
          h('span', {}, `${l10n.t('Nearest character boundaries:')} `),
          button(l10n.t('byte {0} (before)', num(before)), () => this.actions.go(before), {
            secondary: true,
            attrs: { 'data-boundary': 'before' },
          }),
          button(l10n.t('byte {0} (after)', num(after)), () => this.actions.go(after), {
            secondary: true,
            attrs: { 'data-boundary': 'after' },
          }),
        ),
      );
    } else if (error instanceof HostError && error.code === 'OFFSET_OUT_OF_RANGE') {
      box.dataset.code = error.code;
      box.appendChild(
        h(
          'div',
          { className: 'boundaries' },
          button(l10n.t('Go to the last page'), () => this.actions.end(), { secondary: true }),
        ),
      );
    } else {
      box.dataset.code = error instanceof HostError ? error.code : 'ERROR';
    }
  }

  clear(): void {
    this.element.hidden = true;
    this.element.replaceChildren();
    delete this.element.dataset.code;
  }
}
