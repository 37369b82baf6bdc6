/**
 * A search hit as one line of the Search Results tree: the matching line's text, cleaned for a
 * label (no terminal colour codes or control characters, no leading indentation, cut around the
 * match when long), and where the match is in it, for TreeItemLabel highlights. vscode-free, so the
 * unit tests run it in plain Node.
 *
 * The engine gives a match's byte offset, not its length: a plain text is as long as its pattern; a
 * regular expression is matched again on the line with JavaScript's RegExp, as the inspector's page
 * highlights (webview/searchPanel.ts). Where the two syntaxes differ the highlight is left out, never
 * wrong: the line and its number still show.
 */
import type { SearchMatch } from '../../core/types';

export interface HitQuery {
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
}

export interface HitLabel {
  /** The line's text as shown. */
  text: string;
  /** The match in `text`, `[start, end)` in UTF-16 units; absent when it cannot be placed. */
  highlight?: [number, number];
}

/** A label longer than this is cut at its end. */
const MAX_LABEL_CHARS = 160;
/** A match further into the line than this is brought forward, this many characters kept before it. */
const MAX_LEAD_CHARS = 48;
const KEPT_BEFORE = 24;

/** How many UTF-16 units of `text` its first `bytes` UTF-8 bytes make (clamped to the text). */
export function charsOfBytes(text: string, bytes: number): number {
  let used = 0;
  let at = 0;
  for (const char of text) {
    if (used >= bytes) break;
    const code = char.codePointAt(0)!;
    used += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    at += char.length;
  }
  return at;
}

/** Where the match starts in `match.text` (which may be a window of a long line, led by "…"). */
export function matchStart(match: SearchMatch): number {
  const from = match.window?.from ?? match.lineOffset;
  const lead = match.window && match.window.from > match.lineOffset && match.text.startsWith('…') ? 1 : 0;
  return lead + charsOfBytes(match.text.slice(lead), Math.max(0, match.offset - from));
}

/** How long the match at `start` of `text` is (0 when it cannot be told). */
export function matchLength(text: string, start: number, query: HitQuery): number {
  if (!query.regex) {
    const length = query.pattern.length;
    const found = text.slice(start, start + length);
    const same = query.caseSensitive ? found === query.pattern : found.toLowerCase() === query.pattern.toLowerCase();
    return same ? length : 0;
  }
  for (const unicode of ['u', '']) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(query.pattern, `y${unicode}${query.caseSensitive ? '' : 'i'}`);
    } catch {
      continue;
    }
    pattern.lastIndex = start;
    const found = pattern.exec(text);
    if (found) return found[0].length;
  }
  return 0;
}

// Terminal escape sequences (CSI, OSC and two-character ones) and other control characters.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0a-\x1f\x7f]/g;

/** `text` without escapes and control characters, tabs as spaces; `map(i)` is where index `i` of `text` went. */
function clean(text: string): { text: string; map(index: number): number } {
  const removed: { at: number; length: number }[] = [];
  const shown = text.replace(ESCAPES, (found, at: number) => {
    removed.push({ at, length: found.length });
    return '';
  });
  return {
    text: shown.replace(/\t/g, ' '),
    map(index) {
      let shift = 0;
      for (const cut of removed) {
        if (cut.at >= index) break;
        shift += Math.min(cut.length, index - cut.at);
      }
      return index - shift;
    },
  };
}

/** The hit's line as the tree shows it, with its match placed. */
export function hitLabel(match: SearchMatch, query: HitQuery): HitLabel {
  const start = matchStart(match);
  const length = matchLength(match.text, start, query);
  const cleaned = clean(match.text);
  let text = cleaned.text;
  let from = cleaned.map(start);
  let to = cleaned.map(start + length);
  // Indentation says nothing in a list of hits.
  const indent = text.length - text.trimStart().length;
  const cut = Math.min(indent, from);
  text = text.slice(cut);
  from -= cut;
  to -= cut;
  if (from > MAX_LEAD_CHARS) {
    const drop = from - KEPT_BEFORE;
    text = `…${text.slice(drop)}`;
    from -= drop - 1;
    to -= drop - 1;
  }
  text = text.trimEnd();
  if (text.length > MAX_LABEL_CHARS) text = `${text.slice(0, MAX_LABEL_CHARS - 1)}…`;
  to = Math.min(to, text.length);
  return to > from ? { text, highlight: [from, to] } : { text };
}

/** How long ago a time was: the one relative form every list uses. */
export { relativeTime } from '../../../webview/times';
