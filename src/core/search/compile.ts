/**
 * Turns a search request into a plan: the RE2 program that decides every match, and the cheapest
 * exact way to run it (see `engine.ts`).
 *
 * - `literal`: the pattern is plain text; a literal scanner finds every match by itself.
 * - `lines`: no match can span lines, so each line is matched on its own, and only the lines a
 *   scanner finds one of the pattern's required literals in (or, without such literals, the lines of
 *   64 KiB blocks that RE2's DFA says hold a match) are matched at all.
 * - `whole`: the pattern names a line break (or `\A`/`\z`), so the whole text is matched at once.
 *
 * A match lies within one line unless the pattern names a line break itself (`\n`, the `s` flag…):
 * so `\s` and `[^x]` do not run on into the next line, as with grep. re2js is pinned (2.10.0) and
 * its program and prefilter are read here; test/unit/searchEngine.test.ts fails if their shape changes.
 */
import type { RE2JS } from 're2js';
import { RecallError } from '../errors';
import { SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';
import type { SearchOptions } from '../types';
import { compileRe2, namesLineBreak, translatePattern } from './syntax';

export const MAX_MATCHES = 1000;
const DEFAULT_MATCHES = 50;
export const MAX_PATTERN_LENGTH = 1000;
/** More required literals than this, or shorter ones, are not worth scanning for: the DFA blocks do better. */
const MAX_SCAN_LITERALS = 32;
const MIN_SCAN_LITERAL = 3;

// re2js flags (RE2JS.CASE_INSENSITIVE, RE2JS.MULTILINE), as numbers so this module loads without it.
const CASE_INSENSITIVE = 1;
const MULTILINE = 4;
// re2js program instructions (Inst) and empty-width flags (Utils) this module looks at.
const EMPTY_WIDTH = 4;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const EMPTY_BEGIN_TEXT = 4;
const EMPTY_END_TEXT = 8;
// re2js prefilter node types (Prefilter.Type).
const EXACT = 1;
const AND = 2;
const OR = 3;

export type SearchPlan = 'literal' | 'lines' | 'whole';

export interface CompiledSearch {
  re: RE2JS;
  plan: SearchPlan;
  /** `literal`: the text; `lines`: literals one of which every match contains (none: use the DFA blocks). */
  literals: string[];
  caseSensitive: boolean;
  maxMatches: number;
}

interface ProgInst {
  op: number;
  arg: number;
  runes: Int32Array;
  matchRune(rune: number): boolean;
}

interface PrefilterNode {
  type: number;
  str: string;
  subs: PrefilterNode[];
}

/** What re2js exposes of a compiled program (`RE2JS.re2()`); not in its public types. */
interface Re2Internals {
  prog: { inst: ProgInst[] };
  prefilter: PrefilterNode | null;
}

const internals = (re: RE2JS): Re2Internals => re.re2();

/** Validates a request and plans it. Throws INVALID_ARGUMENT (with the fix) for a bad pattern or option. */
export function compileSearch(outputId: string, pattern: unknown, options: SearchOptions = {}): CompiledSearch {
  const { maxMatches, caseSensitive } = checkSearchRequest(outputId, pattern, options);
  const text = pattern as string;
  const literal = !options.regex || !/[\\^$.|?*+()[\]{}]/.test(text);
  const flags = MULTILINE | (caseSensitive ? 0 : CASE_INSENSITIVE);
  if (literal) {
    const re = compileRe2(escapeRe2(text), flags, text);
    // A literal U+FFFD (or a lone surrogate, which becomes one) also matches undecodable bytes: RE2 decides those.
    const plan = /[\uFFFD\uD800-\uDFFF]/.test(text) ? 'whole' : 'literal';
    return { re, plan, literals: [text], caseSensitive, maxMatches };
  }
  const source = translatePattern(text);
  const re = compileRe2(source, flags, text);
  const inst = internals(re).prog.inst;
  const anchoredToText = inst.some((i) => i.op === EMPTY_WIDTH && (i.arg & (EMPTY_BEGIN_TEXT | EMPTY_END_TEXT)) !== 0);
  if (anchoredToText || (namesLineBreak(source) && inst.some(matchesNewline))) {
    return { re, plan: 'whole', literals: [], caseSensitive, maxMatches };
  }
  // The literals every match must contain, from RE2's own prefilter of the case-sensitive program
  // (with folding its literals drop out of the prefilter): a folded match contains a folded copy.
  const exact = caseSensitive ? re : compileRe2(source, MULTILINE, text);
  const literals = requiredLiterals(internals(exact).prefilter) ?? [];
  const worthScanning = literals.every((literal) => literal.length >= MIN_SCAN_LITERAL);
  return { re, plan: 'lines', literals: worthScanning ? literals : [], caseSensitive, maxMatches };
}

/** The request checks that need no compiling (done before a store fetches any bytes). */
export function checkSearchRequest(
  outputId: string,
  pattern: unknown,
  options: SearchOptions = {},
): { maxMatches: number; caseSensitive: boolean } {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `pattern must be a non-empty string of at most ${MAX_PATTERN_LENGTH} characters. Example: ${SEARCH_TOOL_OUTPUT_TOOL} {"outputId":"${outputId}","pattern":"total"}.`,
    );
  }
  const maxMatches = options.maxMatches ?? DEFAULT_MATCHES;
  if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > MAX_MATCHES) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `maxMatches must be an integer from 1 to ${MAX_MATCHES}; got ${JSON.stringify(options.maxMatches)}.`,
    );
  }
  return { maxMatches, caseSensitive: options.caseSensitive === true };
}

/** RE2's quoting (RE2JS.quote): every character outside [A-Za-z0-9_] that could be special is escaped. */
const escapeRe2 = (text: string): string => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

function matchesNewline(inst: ProgInst): boolean {
  if (inst.op === RUNE_ANY) return true;
  if (inst.op === RUNE1) return inst.runes[0] === 0x0a;
  return inst.op === RUNE && inst.matchRune(0x0a);
}

/**
 * A set of literals such that every match contains one of them: from an exact node its string,
 * from an alternation the union of its branches' sets, from a concatenation its best member's set
 * (the longest shortest literal: the fewest false candidates). Undefined when there is none.
 */
function requiredLiterals(node: PrefilterNode | null): string[] | undefined {
  if (!node) return undefined;
  if (node.type === EXACT) return node.str.length > 0 ? [node.str] : undefined;
  if (node.type === OR) {
    const union: string[] = [];
    for (const sub of node.subs) {
      const set = requiredLiterals(sub);
      if (!set) return undefined;
      union.push(...set);
    }
    return union.length <= MAX_SCAN_LITERALS ? [...new Set(union)] : undefined;
  }
  if (node.type === AND) {
    let best: string[] | undefined;
    const score = (set: string[]): number => Math.min(...set.map((literal) => literal.length));
    for (const sub of node.subs) {
      const set = requiredLiterals(sub);
      if (set && (!best || score(set) > score(best))) best = set;
    }
    return best;
  }
  return undefined;
}
