/**
 * A tiny element builder. Children that are strings become text nodes, and there is no way to pass
 * markup: output text can only ever reach the DOM through textContent/createTextNode.
 */
export type Child = Node | string | number | false | null | undefined;

export interface Props {
  className?: string;
  id?: string;
  title?: string;
  /** Attributes (aria-*, role, data-*, type…); values are set with setAttribute, never parsed. */
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.className) element.className = props.className;
  if (props.id) element.id = props.id;
  if (props.title) element.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    // Never let a caller set an event handler attribute or a URL-bearing one by accident.
    if (/^on/i.test(name) || /^(href|src|srcdoc|style|action|formaction)$/i.test(name)) throw new Error(`refusing attribute ${name}`);
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) element.addEventListener(type, listener as EventListener);
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

let nextId = 0;
/** A document-unique id for aria-describedby and friends. */
export const uid = (prefix: string): string => `${prefix}-${++nextId}`;

export function button(label: string, onClick: () => void, props: Props & { secondary?: boolean; icon?: string } = {}): HTMLButtonElement {
  const { secondary, icon, className, ...rest } = props;
  const classes = ['btn', secondary ? 'secondary' : '', icon ? 'with-icon' : '', className ?? ''].filter(Boolean).join(' ');
  // Named by its label alone: a glyph is decoration, and a name read from the text would carry it ("›\nNext").
  const name = icon ? { 'aria-label': label } : {};
  return h(
    'button',
    { ...rest, className: classes, attrs: { type: 'button', ...name, ...rest.attrs }, on: { click: onClick, ...rest.on } },
    icon ? h('span', { className: 'icon', attrs: { 'aria-hidden': 'true' } }, icon) : null,
    h('span', { className: 'label' }, label),
  );
}

/** A toggle in the style of VS Code's find widget options (aria-pressed). */
export function toggle(
  label: string,
  text: string,
  pressed: boolean,
  onChange: (pressed: boolean) => void,
  title?: string,
): HTMLButtonElement {
  const element = h(
    'button',
    { className: 'toggle', title: title ?? label, attrs: { type: 'button', 'aria-pressed': String(pressed), 'aria-label': label } },
    text,
  );
  element.addEventListener('click', () => {
    const next = element.getAttribute('aria-pressed') !== 'true';
    element.setAttribute('aria-pressed', String(next));
    onChange(next);
  });
  return element;
}

/** Whether `element` scrolls its own content (wide layout), or grows with it (narrow: the document scrolls). */
export function ownScroller(element: HTMLElement): boolean {
  return getComputedStyle(element).overflowY !== 'visible';
}

// The latest centring per container: a newer one (another jump) ends an older one's corrections.
const centring = new WeakMap<HTMLElement, HTMLElement>();

/**
 * Centres `element` in the scrolling `container` without scrolling anything around it. Chunks of
 * lines never shown yet count one line per line until the browser lays them out (textView.ts), and
 * wrapped lines are taller: the chunks that come into view after the first scroll grow and push the
 * element away. So it is centred again on the following frames until it stays put (at most `frames`).
 */
export function scrollWithin(box: HTMLElement, element: HTMLElement, frames = 10): void {
  // In a narrow view the text areas grow with their lines and the document scrolls (inspector.css):
  // the element is centred in the part of the window below what sticks at its top (the pager's head).
  const own = ownScroller(box);
  const container = own ? box : ((document.scrollingElement as HTMLElement | null) ?? box);
  const offset = (): number => {
    const target = element.getBoundingClientRect();
    if (!own) {
      const sticky = [...document.querySelectorAll<HTMLElement>('.pager-head')].find((e) => getComputedStyle(e).position === 'sticky');
      const top = sticky ? Math.max(0, sticky.getBoundingClientRect().bottom) : 0;
      return target.top - top - (window.innerHeight - top - target.height) / 2;
    }
    const bounds = container.getBoundingClientRect();
    return target.top - bounds.top - container.clientTop - (container.clientHeight - target.height) / 2;
  };
  centring.set(container, element);
  container.scrollTop += offset();
  let left = frames;
  let still = 0;
  const settle = (): void => {
    if (centring.get(container) !== element || !element.isConnected || --left < 0) return;
    const before = container.scrollTop;
    const delta = offset();
    if (Math.abs(delta) >= 1) container.scrollTop += delta;
    // Stop once nothing moved for two frames (the browser shows newly visible chunks a frame after
    // the scroll that reveals them): centred, or as near as the scroll range allows.
    still = container.scrollTop === before ? still + 1 : 0;
    if (still < 2) requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
}
