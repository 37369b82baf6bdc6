/**
 * The pattern language of `search_tool_output`: RE2 syntax (what re2js runs, in time linear in the
 * text), plus JavaScript's `\uXXXX` and `\u{…}` escapes, which models write out of habit and RE2
 * spells `\x{…}`. What RE2 refuses because no linear-time engine can run it (backreferences,
 * lookaround, atomic groups, possessive quantifiers) is named in the error, with what to do instead.
 */
import { RE2JS } from 're2js';
import { RecallError } from '../errors';

/** Rewrites JavaScript's `\uXXXX` and `\u{X…}` escapes to RE2's `\x{…}`; everything else is kept (`\Q…\E` too). */
export function translatePattern(pattern: string): string {
  let out = '';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    if (char !== '\\' || at + 1 >= pattern.length) {
      out += char;
      continue;
    }
    const next = pattern[at + 1];
    if (next === 'Q') {
      // Quoted text runs to \E (or the end): copied as is, escapes inside are literal.
      const end = pattern.indexOf('\\E', at + 2);
      const stop = end < 0 ? pattern.length : end + 2;
      out += pattern.slice(at, stop);
      at = stop - 1;
      continue;
    }
    const braced = next === 'u' ? /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(at + 2)) : null;
    const plain = next === 'u' && !braced ? /^[0-9a-fA-F]{4}/.exec(pattern.slice(at + 2)) : null;
    if (braced) {
      out += `\\x{${braced[1]}}`;
      at += 1 + braced[0].length;
    } else if (plain) {
      out += `\\x{${plain[0]}}`;
      at += 1 + plain[0].length;
    } else {
      out += char + next;
      at++;
    }
  }
  return out;
}

/**
 * Whether the pattern names a line break itself: `\n`, `\x0A`, `\x{A}`, octal `\012`, a raw line
 * feed, or the `s` flag (`.` matching a line break). Only such a pattern searches across lines;
 * any other match lies within one line, as with grep (see `planSearch`).
 */
export function namesLineBreak(source: string): boolean {
  if (source.includes('\n')) return true;
  for (let at = 0; at < source.length; at++) {
    if (source[at] === '\\') {
      const rest = source.slice(at + 1, at + 12);
      if (/^(?:n|x0?[aA](?![0-9a-fA-F])|x\{0*[aA]\}|0?12(?![0-7]))/.test(rest)) return true;
      if (rest[0] === 'Q') {
        const end = source.indexOf('\\E', at + 2);
        at = end < 0 ? source.length : end + 1;
        continue;
      }
      at++;
      continue;
    }
    // A flag group: (?s) (?is) (?s:…) (?i-s) — `s` before any `-` turns it on.
    if (source.startsWith('(?', at)) {
      const flags = /^\(\?([imsU]*)(?:-[imsU]*)?[:)]/.exec(source.slice(at));
      if (flags && flags[1].includes('s')) return true;
    }
  }
  return false;
}

const LOOKAROUND_HINT =
  'Match the neighbouring text as part of the pattern instead (the match then starts there; read around it), or search for the main part and read around the matches.';
const BACKREFERENCE_HINT = 'Spell the repeated text out, or search for its first occurrence and read around the matches.';

/** RE2's error names the offending text in backticks: the constructs it refuses by design, by that text. */
const REFUSED: [RegExp, string, string][] = [
  [/^\(\?=/, 'a lookahead "(?=…)"', LOOKAROUND_HINT],
  [/^\(\?!/, 'a negative lookahead "(?!…)"', LOOKAROUND_HINT],
  [/^\(\?<=/, 'a lookbehind "(?<=…)"', LOOKAROUND_HINT],
  [/^\(\?<!/, 'a negative lookbehind "(?<!…)"', LOOKAROUND_HINT],
  [/^\(\?>/, 'an atomic group "(?>…)"', 'Use a plain group "(?:…)": this engine never backtracks, so it is not needed.'],
  [/^\(\?\(/, 'a conditional "(?(…)…)"', 'Use an alternation "(?:a|b)" instead.'],
  [/^\\[1-9]/, 'a backreference', BACKREFERENCE_HINT],
  [/^\\[kg]/, 'a named backreference', BACKREFERENCE_HINT],
  [/^[*+?}]\+$/, 'a possessive quantifier', 'Drop the second "+": this engine never backtracks, so a plain quantifier does the same.'],
];

/** Compiles an RE2 `source`; a syntax error becomes INVALID_ARGUMENT, naming a construct RE2 refuses. */
export function compileRe2(source: string, flags: number, original: string): RE2JS {
  try {
    return RE2JS.compile(source, flags);
  } catch (error) {
    // (re2js shows the flags it was given as a prefix of the pattern: not what the model wrote.)
    const message = (error as Error).message.replace(/^error parsing regexp: /, '').replace(/`(?:\(\?[imsU]+\))+/, '`');
    const fragment = /`([^`]*)`/.exec(message)?.[1] ?? '';
    const refused = REFUSED.find(([shape]) => shape.test(fragment));
    if (refused) {
      throw new RecallError(
        'INVALID_ARGUMENT',
        `pattern ${JSON.stringify(original)} uses ${refused[1]}, which this search does not support: it runs RE2 syntax in time linear in the text, without backtracking. ${refused[2]}`,
        { construct: refused[1] },
      );
    }
    throw new RecallError(
      'INVALID_ARGUMENT',
      `pattern ${JSON.stringify(original)} is not a valid regular expression in RE2 syntax (${message}). Fix it, or pass "regex": false to search for the literal text.`,
    );
  }
}
