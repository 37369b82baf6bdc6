/**
 * Terminal output → styled text segments. SGR colour/weight sequences become styles; every other
 * escape sequence (cursor moves, titles, OSC 8 hyperlinks, DCS…) is dropped, so nothing in the
 * output is ever interpreted as anything but text. Control characters that would be invisible or
 * reorder text (C0/C1 controls, bidi overrides) are shown as visible symbols instead.
 *
 * In raw mode nothing is interpreted at all: ESC and every other control is shown as a symbol and
 * sequences stay visible as the characters they are — the bytes exactly as the model got them.
 */

export interface Style {
  fg?: number | string; // 0-15: theme ANSI colour; string: rgb() built from numbers only
  bg?: number | string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
  strike?: boolean;
}

export interface Segment {
  text: string;
  style?: Style;
  /** A control character shown as a symbol (the symbol is `text`). */
  control?: boolean;
}

// CSI (7-bit and C1), OSC (to BEL or ST, never past a line end), DCS/SOS/PM/APC, two-byte escapes,
// then single controls other than \t and \n; bidi embedding/override/isolate controls.
const TOKEN =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|\r(?=\n)|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The visible stand-in for one control character: its Control Pictures glyph, or U+XXXX. */
export function controlSymbol(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Parses `text`, continuing from `state` (SGR state carries across lines); returns the new state. */
export function parseAnsi(text: string, state: Style, raw = false): { segments: Segment[]; state: Style } {
  const segments: Segment[] = [];
  let style = { ...state };
  let last = 0;
  const pattern = raw ? RAW_CONTROL : TOKEN;
  pattern.lastIndex = 0;
  const pushText = (value: string): void => {
    if (value.length === 0) return;
    const styled = hasStyle(style) ? { ...style } : undefined;
    const previous = segments[segments.length - 1];
    if (previous && !previous.control && sameStyle(previous.style, styled)) previous.text += value;
    else segments.push({ text: value, style: styled });
  };
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    pushText(text.slice(last, m.index));
    last = m.index + m[0].length;
    const token = m[0];
    if (raw || token.length === 1) {
      if (token === '\r' && !raw && text[m.index + 1] === '\n') continue; // the \r of a \r\n line ending
      segments.push({ text: controlSymbol(token), control: true }); // includes a lone ESC
      continue;
    }
    if (token.endsWith('m') && (token.startsWith('\x1b[') || token.startsWith('\x9b'))) {
      style = applySgr(style, token.slice(token.startsWith('\x9b') ? 1 : 2, -1));
    }
    // Any other sequence is dropped on purpose.
  }
  pushText(text.slice(last));
  return { segments, state: style };
}

export function hasStyle(style: Style): boolean {
  return Object.values(style).some((value) => value !== undefined && value !== false);
}

function sameStyle(a: Style | undefined, b: Style | undefined): boolean {
  if (!a || !b) return a === b;
  const keys: (keyof Style)[] = ['fg', 'bg', 'bold', 'dim', 'italic', 'underline', 'inverse', 'strike'];
  return keys.every((key) => a[key] === b[key]);
}

function applySgr(previous: Style, params: string): Style {
  const style = { ...previous };
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) for (const key of Object.keys(style) as (keyof Style)[]) delete style[key];
    else if (code === 1) style.bold = true;
    else if (code === 2) style.dim = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 7) style.inverse = true;
    else if (code === 9) style.strike = true;
    else if (code === 22) {
      style.bold = false;
      style.dim = false;
    } else if (code === 23) style.italic = false;
    else if (code === 24) style.underline = false;
    else if (code === 27) style.inverse = false;
    else if (code === 29) style.strike = false;
    else if (code >= 30 && code <= 37) style.fg = code - 30;
    else if (code >= 90 && code <= 97) style.fg = code - 90 + 8;
    else if (code === 39) delete style.fg;
    else if (code >= 40 && code <= 47) style.bg = code - 40;
    else if (code >= 100 && code <= 107) style.bg = code - 100 + 8;
    else if (code === 49) delete style.bg;
    else if (code === 38 || code === 48) {
      const [color, used] = extendedColor(codes, i + 1);
      i += used;
      if (color !== undefined) style[code === 38 ? 'fg' : 'bg'] = color;
    }
  }
  return style;
}

/** 38;5;n and 38;2;r;g;b. Returns the colour and how many parameters it consumed. */
function extendedColor(codes: number[], at: number): [number | string | undefined, number] {
  const byte = (value: number | undefined): number => Math.max(0, Math.min(255, Math.floor(Number(value) || 0)));
  if (codes[at] === 5) {
    const n = byte(codes[at + 1]);
    if (n < 16) return [n, 2];
    if (n >= 232) {
      const grey = 8 + (n - 232) * 10;
      return [`rgb(${grey}, ${grey}, ${grey})`, 2];
    }
    const cube = n - 16;
    const level = (v: number): number => (v === 0 ? 0 : 55 + v * 40);
    return [`rgb(${level(Math.floor(cube / 36))}, ${level(Math.floor(cube / 6) % 6)}, ${level(cube % 6)})`, 2];
  }
  if (codes[at] === 2) return [`rgb(${byte(codes[at + 1])}, ${byte(codes[at + 2])}, ${byte(codes[at + 3])})`, 4];
  return [undefined, 0];
}

// Pages are cut by bytes, so a page edge can fall inside an escape sequence. The start of one that
// the text does not finish: CSI (7-bit or C1) up to its final byte, or ESC with intermediates only.
const UNFINISHED_TAIL = /(?:\x1b(?:\[[0-?]*[ -/]*|[ -/]*)|\x9b[0-?]*[ -/]*)$/;

/**
 * Characters at the end of `text` that begin an escape sequence it does not finish (0 if none). The
 * page after it finishes the sequence (see `continuation`), so this page shows none of it.
 */
export function unfinishedTail(text: string): number {
  return UNFINISHED_TAIL.exec(text)?.[0].length ?? 0;
}

/**
 * For text that starts where `lead` ends: how many of its first characters finish an escape sequence
 * begun in `lead` (to be shown as nothing, like the rest of the sequence), and the style in force
 * after them: `leadState` (in force where `lead` starts) with the SGR of `lead` and of the finished
 * sequence applied.
 */
export function continuation(lead: string, text: string, leadState: Style = {}): { skip: number; state: Style } {
  const joined = lead + text.slice(0, 4096);
  let skip = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(joined); m && m.index < lead.length; m = TOKEN.exec(joined)) {
    if (m.index + m[0].length > lead.length) skip = m.index + m[0].length - lead.length;
  }
  return { skip, state: parseAnsi(joined.slice(0, lead.length + skip), leadState).state };
}
