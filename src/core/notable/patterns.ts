/**
 * What makes a line notable, per kind of output: errors, failures, exceptions, panics, assertion
 * messages, warnings, and summary lines (totals, passed/failed counts, results, exit codes).
 *
 * The patterns run over untrusted output, so each is an alternation of literals between word
 * boundaries, with only bounded repetition (`{0,30}`, `\s{0,8}`): nothing nested or unbounded that
 * could backtrack, so a scan costs time proportional to the text whatever it holds. They run on
 * text decoded as latin1 (one byte, one character), so a match index is a byte offset; every
 * keyword is ASCII, and the bytes of a multi-byte UTF-8 character are all ≥ 0x80, never a letter.
 */

import type { NotableLine } from '../types';
import { ASSIGNED_END, type ByteWord, NO_END, WORD_END, byteWords } from './byteWords';

export type NotableClass = NotableLine['class'];

/** Which patterns apply: command output (logs, compilers, test runners), JSON, search results. */
export type NotableKind = 'command' | 'json' | 'search';

/** Rank of each class: errors before summaries before warnings. */
export const CLASS_RANK: Record<NotableClass, number> = { error: 0, summary: 1, warning: 2 };

/**
 * Every word a scan can match, spelled out (no optional parts), so a hit's class is one lookup.
 * `fixed`: a count beside it does not make it a summary ("not ok 3" is a failed test).
 */
const ERROR_WORDS = [
  'error',
  'errors',
  'fatal',
  'exception',
  'exceptions',
  'traceback',
  'panic',
  'panics',
  'panicked',
  'fail',
  'fails',
  'failed',
  'failure',
  'failures',
  'failing',
  'assert',
  'assertion',
  'assertionerror',
  'segmentation fault',
  'core dumped',
  'abort',
  'aborts',
  'aborted',
  'permission denied',
  'access denied',
  'cannot',
  'unable to',
  'undefined reference',
  'out of memory',
  'killed',
  'timed out',
  'unhandled',
  'uncaught',
];
const FIXED_ERROR_WORDS = ['not ok', 'no such file'];
const WARNING_WORDS = ['warn', 'warns', 'warning', 'warnings', 'deprecated', 'deprecation'];
const SUMMARY_WORDS = ['total', 'totals', 'summary', 'passed', 'passing', 'succeeded', 'exit code', 'exit status', 'exited with'];
/** Search tools' own summaries: "12 matches", "No matches found". */
const SEARCH_WORDS = ['matches', 'no matches', 'hits', 'file searched', 'files searched'];

/**
 * Chinese, Japanese and Korean words for error, failure, exception, warning and total. They have
 * no word boundaries, and the scan reads latin1, so each is matched as its UTF-8 bytes.
 */
const CJK_WORDS: [string, NotableClass][] = [
  ['错误', 'error'],
  ['失败', 'error'],
  ['异常', 'error'],
  ['致命', 'error'],
  ['エラー', 'error'],
  ['失敗', 'error'],
  ['例外', 'error'],
  ['오류', 'error'],
  ['실패', 'error'],
  ['警告', 'warning'],
  ['경고', 'warning'],
  ['总计', 'summary'],
  ['合计', 'summary'],
  ['合計', 'summary'],
];
const asLatin1 = (word: string): string => Buffer.from(word, 'utf8').toString('latin1');
/** The lead bytes of those words, for the scanner's cheap check that a chunk may hold a keyword. */
const CJK_LEAD_BYTES: readonly number[] = [...new Set(CJK_WORDS.map(([word]) => Buffer.from(word, 'utf8')[0]))];
/**
 * Their bytes as one pattern, a trie of alternations like the words' (V8 tries it twice as fast as
 * their list); as no word is a prefix of another, it matches exactly what the list would.
 */
const CJK_ENDS = new Map(CJK_WORDS.map(([word]) => [asLatin1(word), NO_END]));
const CJK_SOURCE = trie(CJK_ENDS, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);

export interface WordClass {
  class: NotableClass;
  fixed: boolean;
}

const WORD_CLASS = new Map<string, WordClass>([
  ...ERROR_WORDS.map((w): [string, WordClass] => [w, { class: 'error', fixed: false }]),
  ...FIXED_ERROR_WORDS.map((w): [string, WordClass] => [w, { class: 'error', fixed: true }]),
  ...WARNING_WORDS.map((w): [string, WordClass] => [w, { class: 'warning', fixed: false }]),
  ...[...SUMMARY_WORDS, ...SEARCH_WORDS, 'result', 'results'].map((w): [string, WordClass] => [w, { class: 'summary', fixed: true }]),
  ['err!', { class: 'error', fixed: true }],
  // (Lower-cased as latin1, as `classifyHit` looks them up; a count beside one still makes a summary.)
  ...CJK_WORDS.map(([word, cls]): [string, WordClass] => [asLatin1(word).toLowerCase(), { class: cls, fixed: cls === 'summary' }]),
]);

/**
 * The words as one pattern: a trie of alternations (`e(?:rror(?:s|\\b)|x…)`), which V8 tries faster
 * than a flat list, each word ending at a word boundary. It has no boundary before: the scanner
 * reads the character before a hit instead (`classifyHit`), which lets a digit come right before
 * (stdout and stderr merged chunk by chunk glue a line's start to another's unfinished end,
 * "1234fatal: …") and keeps `TypeError:` (a keyword ending a name). `result(s)` counts only before
 * a colon or an equals sign ("test result: ok"; elsewhere it is prose); `npm ERR!` ends in
 * punctuation.
 */
function words(list: string[]): Map<string, string> {
  const ends = new Map<string, string>(list.map((word) => [word, WORD_END]));
  for (const word of ['result', 'results']) ends.set(word, ASSIGNED_END);
  ends.set('err!', NO_END);
  return ends;
}

/**
 * A regex source matching exactly the words of `ends` (each followed by its end assertion), as
 * nested alternations by shared prefix; a longer word is tried before a word it extends.
 */
function trie(ends: Map<string, string>, escape = (char: string): string => char.replace(/[.?()|[\]\\!]/g, '\\$&')): string {
  interface Node {
    end?: string;
    next: Map<string, Node>;
  }
  const root: Node = { next: new Map() };
  for (const [word, end] of ends) {
    let node = root;
    for (const char of word) {
      if (!node.next.has(char)) node.next.set(char, { next: new Map() });
      node = node.next.get(char)!;
    }
    node.end = end;
  }
  const emit = (node: Node): string => {
    const alternatives = [...node.next].map(([char, child]) => escape(char) + emit(child));
    if (node.end !== undefined) alternatives.push(node.end);
    return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
  };
  return emit(root);
}

/**
 * JSON keys of summary objects (`"total":`, `"numFailedTests":`, `"error_count":`): a stem, then
 * the rest of a key and its colon; the match starts at the stem, so the scan tries it only where a
 * stem's first letter is. `classifyHit` finds the key's opening quote (at most 30 characters back)
 * and keeps the key only when the stem starts a word of it (`"accountId"` is no count).
 */
const JSON_STEMS = ['total', 'count', 'summary', 'error', 'fail', 'pass', 'status', 'result', 'exit', 'success', 'warn', 'skip'];
const JSON_KEY = `(?:${JSON_STEMS.join('|')})[\\w$-]{0,30}"\\s{0,8}:`;

const COMMAND_WORDS = [...ERROR_WORDS, ...FIXED_ERROR_WORDS, ...WARNING_WORDS, ...SUMMARY_WORDS];

/**
 * One scan: a pattern, and the bytes one of which a chunk (with its carried bytes) must hold for
 * the pattern to match in it at all, which a memchr settles. Several small patterns with such
 * gates scan faster than their union: V8 tries every alternative of a union at every position.
 */
export interface Scan {
  regex: RegExp;
  /** Undefined: always run. */
  gate?: readonly number[];
  /**
   * The texts (latin1, each of 4 characters or more) a hit starts with, in either case when the
   * pattern ignores case: what the scanner's prefilter (`prefilter.ts`) looks for.
   */
  starts: readonly string[];
  /**
   * The regex's match at a position, anchored, found on the bytes (`byteWords.ts`): its length
   * and its word's class. Undefined: the scanner runs the regex.
   */
  match?: (text: Uint8Array, at: number) => ByteWord<WordClass | undefined> | undefined;
}

/** Every English word above has an `a`, an `e` or an `o`, in one case or the other. */
const VOWELS = [0x65, 0x61, 0x6f, 0x45, 0x41, 0x4f];

/** A word's class as `classifyHitAt` looks a match up (its spelling lower-cased). */
const classOf = (word: string): WordClass | undefined => WORD_CLASS.get(word.toLowerCase());

const wordScan = (list: string[], gate?: readonly number[]): Scan => {
  const ends = words(list);
  return { regex: new RegExp(trie(ends), 'gi'), gate, starts: [...ends.keys()], match: byteWords(ends, true, classOf) };
};
const WORDS = wordScan(COMMAND_WORDS, VOWELS);
const SEARCH = wordScan([...COMMAND_WORDS, ...SEARCH_WORDS]);
const CJK: Scan = {
  regex: new RegExp(CJK_SOURCE, 'g'),
  gate: CJK_LEAD_BYTES,
  starts: [...CJK_ENDS.keys()],
  match: byteWords(CJK_ENDS, false, classOf),
};
const KEYS: Scan = { regex: new RegExp(JSON_KEY, 'gi'), starts: JSON_STEMS };

/**
 * The scans per kind, built once; a scanner copies the regexes (their `lastIndex` is state). JSON
 * adds its keys to the command words (for string values); search results add the search tools'
 * own words (not all of which pass the vowel gate).
 */
export const SCANS: Readonly<Record<NotableKind, readonly Scan[]>> = {
  command: [WORDS, CJK],
  json: [KEYS, WORDS, CJK],
  search: [SEARCH, CJK],
};

/** The longest text one scan hit can span; a chunked scan re-reads this much across a boundary. */
export const MAX_HIT_BYTES = 80;

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isSpace = (code: number): boolean => code === 0x20 || code === 0x09;
const isLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isUpper = (code: number): boolean => code >= 0x41 && code <= 0x5a;

/**
 * What one hit says about its line: a class, or `count` — an error or warning word with a count
 * beside it ("0 errors", "failed: 3", "3 failed") or negated ("no errors"), which makes a summary
 * line unless the line also has a plain error word ("ERROR job 1000 failed" is an error).
 */
export type HitClass = NotableClass | 'count';

/**
 * The class of one hit of the scan at `index` in `text` (`word` is what matched), from a few
 * characters of context. Returns undefined for a hit that is not notable after all.
 */
export function classifyHit(text: string, index: number, word: string, kind: NotableKind): HitClass | undefined {
  return classifyHitAt(Buffer.from(text, 'latin1'), index, word, kind);
}

/**
 * `classifyHit` over the bytes the scan read as latin1 (one byte, one character): the scanner
 * reads the context from the bytes themselves, so it decodes only what its patterns run over.
 */
export function classifyHitAt(text: Buffer, index: number, word: string, kind: NotableKind): HitClass | undefined {
  if (word.charCodeAt(word.length - 1) === 0x3a) return classifyJsonKey(text, index, word);
  return classifyWordAt(text, index, word.length, SPELLINGS.get(word) ?? spelling(word), kind);
}

/** `classifyHitAt` for a word of `length` bytes at `index` whose class is `known` (as `Scan.match` finds one). */
export function classifyWordAt(
  text: Buffer,
  index: number,
  length: number,
  known: WordClass | undefined,
  kind: NotableKind,
): HitClass | undefined {
  if (!known) return undefined;
  const before = index > 0 ? text[index - 1] : 0;
  if (before === 0x5f || (isLetter(before) && !compoundName(text, index, length))) return undefined;
  if (known.fixed) return known.class;
  if (known.class === 'warning') return countNear(text, index, length) ? 'count' : 'warning';
  if (known.class === 'summary') return 'summary';
  if (countNear(text, index, length) || negated(text, index)) return 'count';
  if (kind === 'search' && looksLikeSearchHit(text, index)) return undefined;
  return 'error';
}

/**
 * WORD_CLASS by a word as it was matched, in its case: each spelling is lower-cased once, not at
 * every hit (a log of `ERROR` lines has thousands). Bounded, though the spellings of the words are.
 */
const SPELLINGS = new Map<string, WordClass | undefined>();
function spelling(word: string): WordClass | undefined {
  const known = WORD_CLASS.get(word.toLowerCase());
  if (SPELLINGS.size < 4096) SPELLINGS.set(word, known);
  return known;
}

/** `TypeError:` — a capitalised keyword ending a name, followed by a colon or the line's end. */
function compoundName(text: Buffer, index: number, length: number): boolean {
  if (!isUpper(text[index])) return false;
  let after = index + length;
  while (after < text.length && isSpace(text[after])) after++;
  const next = text[after];
  return after >= text.length || next === 0x3a || next === 0x0a || next === 0x0d;
}

/** "3 failed", "errors: 0", "failures=2": an error word that counts is a summary. */
function countNear(text: Buffer, index: number, length: number): boolean {
  // "3 failed" counts; "1234failed" is two lines glued together (see `words`).
  let before = index - 1;
  while (before >= 0 && isSpace(text[before])) before--;
  let after = index + length;
  while (after < text.length && isSpace(text[after])) after++;
  const sep = after < text.length ? text[after] : 0;
  let value = after + 1;
  while (value < text.length && isSpace(text[value])) value++;
  const countAfter = (sep === 0x3a || sep === 0x3d) && value < text.length && isDigit(text[value]); // ':' or '='
  if (before >= 0 && before < index - 1 && isDigit(text[before]) && !levelAfterNumber(text, before, index, length, sep, countAfter))
    return true;
  return countAfter;
}

/**
 * Whether the number before a word (its last digit at `digit`) is not its count: the word is a
 * log level or a label after a line number or a time ("line 9000 ERROR: disk full", "12:00:01
 * error: …", "job 17 FAILED"): it is in capitals, or a colon and no count follow it, or the
 * number is the end of a time.
 */
function levelAfterNumber(text: Buffer, digit: number, index: number, length: number, sep: number, countAfter: boolean): boolean {
  let letters = 0;
  let upper = 0;
  for (let i = index; i < index + length; i++) {
    if (isLetter(text[i])) letters++;
    if (isUpper(text[i])) upper++;
  }
  if ((letters > 1 && upper === letters) || (sep === 0x3a && !countAfter)) return true;
  let start = digit;
  while (start > 0 && isDigit(text[start - 1])) start--;
  return start > 0 && text[start - 1] === 0x3a;
}

/** What `\s` matches in latin1: tab to carriage return, space, no-break space. */
const isRegexSpace = (code: number): boolean => (code >= 0x09 && code <= 0x0d) || code === 0x20 || code === 0xa0;

/** "no errors", "without failures", "zero warnings". */
function negated(text: Buffer, index: number): boolean {
  // The pattern ends in 1 to 3 spaces after an "o" or a "t": most hits have none, and need no decoding.
  let word = index - 1;
  while (word >= 0 && index - word <= 3 && isRegexSpace(text[word])) word--;
  if (word === index - 1 || word < 0 || ((text[word] | 0x20) !== 0x6f && (text[word] | 0x20) !== 0x74)) return false;
  return /(?:^|[^a-z])(?:no|without|zero)\s{1,3}$/i.test(text.toString('latin1', Math.max(0, index - 12), index));
}

/**
 * A search tool's result line (`path:12:text`, `path-12-text`) quotes the searched files: words in
 * it are what was searched for, not the tool's own errors.
 */
function looksLikeSearchHit(text: Buffer, index: number): boolean {
  // Only the prefix can say so, and it is short: a line start further back than that is no result line.
  let start = index;
  while (start > 0 && index - start < PREFIX_CHARS && text[start - 1] !== 0x0a) start--;
  if (start > 0 && text[start - 1] !== 0x0a) return false;
  return /^[^\s:]{1,300}[:-]\d{1,9}[:-]/.test(text.toString('latin1', start, Math.min(text.length, start + PREFIX_CHARS)));
}
const PREFIX_CHARS = 320;

/**
 * A JSON key hit (`stem…":` at `index`): kept when the key's opening quote is at most 30 characters
 * back and the stem starts a word of the key (`"total"`, `"error_count"`, `"numFailedTests"`, not
 * `"accountId"`). `"errors": 0` and `"error": null` are summaries; `"error": "boom"` is an error;
 * `"warnings": [...]` a warning.
 */
function classifyJsonKey(text: Buffer, index: number, match: string): NotableClass | undefined {
  let open = index - 1;
  while (open >= 0 && index - open <= 31 && isKeyChar(text[open])) open--;
  if (open < 0 || text[open] !== 0x22 || index - open > 31) return undefined;
  const before = text[index - 1];
  if (open !== index - 1 && isLetter(before) && !isUpper(text[index])) return undefined;
  const key = text.toString('latin1', open + 1, index + match.lastIndexOf('"')).toLowerCase();
  // A number, or nothing (0, null, false, "", [], {}), is a count or a status; anything else names
  // the error or warning itself.
  const plain = countOrEmpty(text, index + match.length);
  if (key.includes('warn')) return plain ? 'summary' : 'warning';
  if (/error|fail/.test(key) && !/count|total|num/.test(key) && !plain) return 'error';
  return 'summary';
}

/** `[\w$-]`: what the key pattern allows in a key. */
function isKeyChar(code: number): boolean {
  return isLetter(code) || isDigit(code) || code === 0x5f || code === 0x24 || code === 0x2d;
}

/** Whether the JSON value at `at` is a number, null, false, or an empty string, array or object. */
function countOrEmpty(text: Buffer, at: number): boolean {
  return /^\s{0,8}(?:-?\d|null\b|false\b|""|\[\s{0,8}\]|\{\s{0,8}\})/.test(
    text.toString('latin1', Math.min(at, text.length), Math.min(at + 24, text.length)),
  );
}
