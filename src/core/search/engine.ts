/**
 * Runs a planned search (compile.ts) over a window of UTF-8 bytes, reporting every match with its
 * byte offset, the offset of its line and the line number.
 *
 * Work is done as a generator that yields after each bounded step (a line or block matched, a
 * scanner hit), so a caller on a shared thread can let other work through and stop on cancellation
 * between steps (`runSliced`), and a synchronous caller just runs it out (`runAll`). Only a `whole`
 * plan has unbounded steps: one RE2 match may scan the rest of the window.
 */
import { MatcherInput, type RE2JS } from 're2js';
import { countNewlines, isUnitBoundary } from '../utf8';
import { matchText } from '../matchText';
import type { SearchMatch } from '../types';
import type { CompiledSearch } from './compile';
import { literalScanner } from './scanners';

/** Lines are checked with RE2's DFA this many bytes at a time when no literal narrows them down. */
const BLOCK_BYTES = 64 * 1024;

/** A part of the searched text: a whole retained copy, or a run of lines of a file. */
export interface SearchWindow {
  bytes: Buffer;
  /** Offset of `bytes[0]` in the whole text. */
  base: number;
  /** Matches that start before this index of `bytes` were reported with the previous window. */
  acceptFrom: number;
  /** Matches that start at or after this index of `bytes` are left to the next window. */
  acceptBefore: number;
  /** Line number (1-based) of `bytes[0]`, and the offset in the whole text where that line starts. */
  line: number;
  lineStart: number;
}

/** The matches so far, over every window of one search. */
export class MatchCollector {
  readonly matches: SearchMatch[] = [];
  truncated = false;

  constructor(readonly maxMatches: number) {}

  get full(): boolean {
    return this.truncated;
  }

  /** Adds a match; past `maxMatches` only notes that more exist. */
  add(match: SearchMatch): void {
    if (this.matches.length === this.maxMatches) this.truncated = true;
    else this.matches.push(match);
  }
}

/** Searches one window, adding to `found`; yields between steps. */
export function* searchWindow(search: CompiledSearch, window: SearchWindow, found: MatchCollector): Generator<void, void> {
  const { bytes, acceptFrom, acceptBefore } = window;
  const lines = new LineTracker(window);
  const report = (offset: number): boolean => {
    // RE2 reads each byte of an ill-formed sequence as its own U+FFFD; the decoder (and so `read`)
    // takes a maximal ill-formed subpart as one: a match inside one has no readable offset.
    if (offset < acceptFrom || offset >= acceptBefore || !isUnitBoundary(bytes, offset)) return offset < acceptBefore;
    const { line, lineOffset } = lines.at(offset);
    const shown = matchText(bytes, Math.max(0, lineOffset - window.base), offset, window.base, window.base > lineOffset);
    found.add({ offset: window.base + offset, lineOffset, line, ...shown });
    return !found.full;
  };
  // A window that goes on from an earlier one's matches (a page that resumes inside a copy) looks from there:
  // a match holds its required literal, so one that starts at or after acceptFrom has it there too.
  if (search.plan === 'literal') {
    const scanner = literalScanner(bytes, search.literals, search.caseSensitive);
    for (let hit = scanner.find(acceptFrom); hit >= 0; hit = scanner.find(hit + 1)) {
      if (!report(hit)) return;
      yield;
    }
    return;
  }
  if (search.plan === 'whole') {
    // Finding where a match starts needs RE2's slower NFA; its DFA first says whether there is any.
    if (!hasMatch(search.re, bytes)) return;
    yield;
    const matcher = search.re.matcher(MatcherInput.utf8(bytes));
    while (matcher.find()) {
      if (!report(matcher.start())) return;
      yield;
    }
    return;
  }
  const matchLine = (from: number, to: number): boolean => {
    const matcher = search.re.matcher(MatcherInput.utf8(bytes.subarray(from, to)));
    while (matcher.find()) if (!report(from + matcher.start())) return false;
    return true;
  };
  if (search.literals.length > 0) {
    const scanner = literalScanner(bytes, search.literals, search.caseSensitive);
    for (let hit = scanner.find(acceptFrom); hit >= 0 && hit < acceptBefore;) {
      const from = hit === 0 ? 0 : bytes.lastIndexOf(0x0a, hit - 1) + 1;
      const to = lineEnd(bytes, hit);
      if (!matchLine(from, to)) return;
      yield;
      hit = scanner.find(to + 1);
    }
    return;
  }
  for (let block = 0; block <= bytes.length && block < acceptBefore;) {
    const end = block + BLOCK_BYTES >= bytes.length ? bytes.length : lineEnd(bytes, block + BLOCK_BYTES);
    if (hasMatch(search.re, bytes.subarray(block, end))) {
      for (let from = block; from <= end;) {
        const to = lineEnd(bytes, from);
        if (!matchLine(from, Math.min(to, end))) return;
        from = to + 1;
      }
    }
    yield;
    block = end + 1;
  }
}

/** Whether RE2's DFA finds a match in these bytes (for a block, a run of whole lines). */
const hasMatch = (re: RE2JS, lines: Buffer): boolean => re.test(lines);

/** Index of the '\n' that ends the line holding `at`, or the window's length. */
function lineEnd(bytes: Buffer, at: number): number {
  const end = bytes.indexOf(0x0a, at);
  return end < 0 ? bytes.length : end;
}

/** Line numbers and line starts of increasing offsets in a window. */
class LineTracker {
  private line: number;
  private countedTo = 0;
  private lineStart: number;

  constructor(private readonly window: SearchWindow) {
    this.line = window.line;
    this.lineStart = window.lineStart;
  }

  at(offset: number): { line: number; lineOffset: number } {
    const { bytes, base } = this.window;
    const newlines = countNewlines(bytes, this.countedTo, offset);
    // The last of them is at most offset - countedTo bytes back: a long line is not walked again per match.
    if (newlines > 0) this.lineStart = base + bytes.lastIndexOf(0x0a, offset - 1) + 1;
    this.line += newlines;
    this.countedTo = offset;
    return { line: this.line, lineOffset: this.lineStart };
  }
}

/** Runs a search generator to its end (on the caller's thread). */
export function runAll(steps: Generator<void, void>): void {
  for (let step = steps.next(); !step.done; step = steps.next());
}
