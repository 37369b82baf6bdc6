/**
 * Tooltips that keyboard users get too: shown on hover and on focus, dismissed with Escape, and
 * announced through aria-describedby (a native `title` is neither focusable nor announced reliably).
 */
import { h, uid } from './dom';

let tip: HTMLElement | undefined;
let owner: HTMLElement | undefined;

function tipElement(): HTMLElement {
  tip ??= document.body.appendChild(h('div', { className: 'tooltip', attrs: { role: 'tooltip', hidden: true } }));
  return tip;
}

function show(target: HTMLElement, text: string): void {
  const element = tipElement();
  element.textContent = text;
  element.hidden = false;
  owner = target;
  const box = target.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  element.style.maxWidth = `${width}px`;
  const left = Math.max(8, Math.min(box.left, window.innerWidth - element.offsetWidth - 8));
  const below = box.bottom + 6;
  const top =
    below + element.offsetHeight > window.innerHeight && box.top > element.offsetHeight + 6 ? box.top - element.offsetHeight - 6 : below;
  element.style.left = `${left}px`;
  element.style.top = `${top}px`;
}

function hide(target?: HTMLElement): void {
  if (tip && (!target || owner === target)) {
    tip.hidden = true;
    owner = undefined;
  }
}

/** Hides whatever tooltip is showing (its owner is about to be replaced). */
export const hideTooltip = (): void => hide();

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') hide();
});
// A fixed-position tooltip would drift away from its owner when anything scrolls: follow it.
document.addEventListener(
  'scroll',
  () => {
    if (owner && tip && !tip.hidden) show(owner, tip.textContent ?? '');
  },
  true,
);

/**
 * Attaches a tooltip to `target`. The text also becomes the element's accessible description
 * (announced even when the tooltip is not showing).
 */
export function withTooltip<T extends HTMLElement>(target: T, text: string): T {
  // Hidden content is left out of the element's own accessible name, yet still serves as its
  // description when referenced by aria-describedby.
  const description = h('span', { className: 'description', id: uid('desc'), attrs: { hidden: true } }, text);
  target.appendChild(description);
  target.setAttribute('aria-describedby', description.id);
  target.addEventListener('mouseenter', () => show(target, text));
  target.addEventListener('mouseleave', () => hide(target));
  target.addEventListener('focus', () => show(target, text));
  target.addEventListener('blur', () => hide(target));
  return target;
}
