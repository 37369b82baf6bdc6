/**
 * Finding text in a retained copy or a file, so a model jumps to a field instead of paging through
 * megabytes. Every match is reported with its byte offset (a valid `read` offset) and its line.
 * Patterns are RE2 syntax and run in time linear in the text (see syntax.ts, compile.ts, engine.ts).
 */
import type { SearchMatch } from '../types';
import type { CompiledSearch } from './compile';
import { MatchCollector, runAll, searchWindow, type SearchWindow } from './engine';

export { compileSearch, checkSearchRequest, MAX_MATCHES, MAX_PATTERN_LENGTH, type CompiledSearch, type SearchPlan } from './compile';
export { MatchCollector, searchWindow, type SearchWindow } from './engine';

/** Runs a compiled search over a whole copy, on this thread. Returns at most `maxMatches` and whether more exist. */
export function searchBytes(bytes: Buffer, search: CompiledSearch): { matches: SearchMatch[]; truncated: boolean } {
  const found = new MatchCollector(search.maxMatches);
  runAll(searchWindow(search, wholeWindow(bytes), found));
  return { matches: found.matches, truncated: found.truncated };
}

/** A whole copy as one window. */
export const wholeWindow = (bytes: Buffer): SearchWindow => ({
  bytes,
  base: 0,
  acceptFrom: 0,
  acceptBefore: bytes.length + 1,
  line: 1,
  lineStart: 0,
});
