/**
 * A search across outputs, as the search worker runs it: the sessions in scope are read here,
 * read-only (readOnlySession.ts: no lock, no byte written, the owner's journal included), their
 * readable outputs taken newest first, and each copy searched until the page has its matches or its
 * time. One copy is held at a time (and, between pages, the one a page ended in); nothing crosses
 * threads but the page.
 *
 * When the search has literals every match contains, a copy in segments is searched by its chunks'
 * trigram masks (store/chunkGrams.ts): only the chunks where a literal can start are read and
 * searched, each within whole lines around it, so the matches are the whole copy's; a copy with no
 * such chunk is not read at all, and once its masks were read (by a search, or by the warm-up a
 * catalog asks for when it starts) neither are they: the view keeps each copy's summary. Without masks
 * or line facts, or still pending in the journal, a copy is searched whole.
 *
 * A page holds whole outputs, each cut at its `perOutput` only, unless `perOutput` is at least the
 * page's matches: then the page ends where it fills up, inside an output, and its cursor continues
 * there (a byte offset past its last match). A copy that cannot be read is named in `unreadable`,
 * and the others are searched.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { RecallError, describeError } from '../errors';
import { MatchCollector, searchWindow, wholeWindow, type CompiledSearch, type SearchWindow } from '../search';
import type { OutputKey, SearchOutcome, SessionsSource } from '../search/protocol';
import { caseVariants } from '../search/scanners';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { literalGrams, type LiteralGrams } from '../store/chunkGrams';
import { CHUNK_BYTES } from '../store/chunks';
import type { OutputHits, OutputInfo } from '../types';
import { countNewlines } from '../utf8';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { compareNewestFirst, isAfter, keyOf } from './listedOutput';
import { trimViews, viewCache, viewOf, type IndexedCopy, type Listed, type ScanView } from './scanView';

/** What searches across outputs read, since the worker started (tests and measurements look). */
export const scanCounts = { wholeCopies: 0, wholeBytes: 0, keptCopies: 0, skippedCopies: 0, windows: 0, windowBytes: 0 };

/** `useMasks`: false searches every copy whole, as before masks (tests and measurements compare the two). */
export async function scanSessions(
  source: SessionsSource,
  search: CompiledSearch,
  control: StepControl,
  useMasks = true,
): Promise<SearchOutcome> {
  // The views this page reads keep their segment files open until it ends (ScanView.beginPage).
  const views = new Set<ScanView>();
  try {
    return await scanPage(source, search, control, useMasks, views);
  } finally {
    for (const view of views) view.endPage();
    // The scope's views stay open for its next page, however many: closed and opened again, each page read every
    // session's index again (every page of a common word over 40 sessions took 18 s instead of 4).
    trimViews(Math.max(viewCache.limit, source.sessions.length));
  }
}

async function scanPage(
  source: SessionsSource,
  search: CompiledSearch,
  control: StepControl,
  useMasks: boolean,
  views: Set<ScanView>,
): Promise<SearchOutcome> {
  const unreadable: { sessionId: string; outputId?: string; reason: string }[] = [];
  const lists: Listed[][] = [];
  // Each folder listed once for its sessions' looks at their files (a listing per session cost a page 6 ms for
  // ten), and on this thread: it is the search's own, and waiting on the thread pool cost more than the listing.
  const listings = new Map<string, string[] | undefined>();
  const listing = (dir: string): string[] | undefined => {
    if (!listings.has(dir)) listings.set(dir, tryReaddir(dir));
    return listings.get(dir);
  };
  for (const { sessionId, file } of source.sessions) {
    try {
      const view = await viewOf(file, listing(path.dirname(file)));
      view.beginPage();
      views.add(view);
      lists.push(await view.listed(sessionId));
      if (source.warmOnly) await view.warm(sessionId);
    } catch (error) {
      unreadable.push({ sessionId, reason: describeError(error) });
    }
  }
  const candidates = inOrder(lists);
  if (source.warmOnly) return page([], 0, 0, 0, candidates.length, unreadable);
  const grams = useMasks ? gramQuery(search) : undefined;
  const pageEnd = performance.now() + source.pageMs;
  // No bound per output: the page alone bounds it, and one that fills up inside an output ends there.
  const unbounded = source.perOutput >= search.maxMatches;
  const groups: OutputHits[] = [];
  let matches = 0;
  let searchedOutputs = 0;
  let searchedBytes = 0;
  // Bytes read and let go (the garbage the page leaves): the copies skipped by their masks are not.
  let readBytes = 0;
  let incompleteSearched = 0;
  let next: OutputKey | undefined;
  const { after } = source;
  const resumed = (key: OutputKey): boolean => after?.from !== undefined && compareNewestFirst(key, after) === 0;
  const todo = candidates.filter(({ output }) => isAfter(output, after) || resumed(output));
  for (const [index, { output, info, view }] of todo.entries()) {
    // A page ends when it has its time (the first page comes back fast), or before an output whose
    // matches might not all fit it: an output is cut by its own perOutput alone (moreInOutput), never
    // by the page, so the cursor, which continues after the last output searched, skips no match.
    // Unbounded, a page ends only when it is full, and its cursor continues inside the output it ended in.
    const room = search.maxMatches - matches;
    if (index > 0 && (room < (unbounded ? 1 : Math.min(source.perOutput, search.maxMatches)) || performance.now() > pageEnd)) {
      next = keyOf(todo[index - 1].output);
      break;
    }
    checkStopped(control);
    const found = new MatchCollector(unbounded ? room : Math.min(source.perOutput, room));
    const from = resumed(output) ? (after?.from ?? 0) : 0;
    let bytes: number;
    let read: number;
    let whole: Buffer | undefined;
    try {
      ({ bytes, read, whole } = await searchCopy(view, info, search, grams, found, control, from, !unbounded));
    } catch (error) {
      // Removed or evicted by its owner since the listing: not an error of the search.
      if (error instanceof RecallError && (error.code === 'NOT_FOUND' || error.code === 'EVICTED')) continue;
      if (error instanceof RecallError && (error.code === 'CANCELLED' || error.code === 'TIMEOUT')) throw error;
      // One copy that cannot be read (a damaged segment) is named, and the others are searched.
      unreadable.push({ sessionId: output.sessionId, outputId: output.outputId, reason: describeError(error) });
      continue;
    }
    searchedOutputs++;
    searchedBytes += bytes;
    readBytes += read;
    if (!output.complete) incompleteSearched++;
    const cutByPage = unbounded && found.truncated;
    if (found.matches.length > 0) {
      groups.push({ output, matches: found.matches, truncated: found.truncated && !cutByPage });
      matches += found.matches.length;
    }
    if (cutByPage) {
      // Its next match starts after the last one here (matches come in order of their offsets).
      next = { ...keyOf(output), from: (found.matches.at(-1)?.offset ?? from) + 1 };
      if (whole) leftIn = { view, outputId: output.outputId, bytes: whole };
      break;
    }
  }
  collectWhenIdle(readBytes);
  return page(groups, searchedOutputs, searchedBytes, incompleteSearched, candidates.length, unreadable, next);
}

function tryReaddir(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

function page(
  groups: OutputHits[],
  searchedOutputs: number,
  searchedBytes: number,
  incompleteSearched: number,
  outputsInScope: number,
  unreadable: { sessionId: string; outputId?: string; reason: string }[],
  next?: OutputKey,
): SearchOutcome {
  return {
    matches: [],
    truncated: next !== undefined,
    totalBytes: searchedBytes,
    across: { groups, searchedOutputs, searchedBytes, incompleteSearched, outputsInScope, unreadable, ...(next ? { next } : {}) },
  };
}

/** The sessions' outputs, newest first (each session's listing is: V8's sort merges such runs in one pass). */
function inOrder(lists: Listed[][]): Listed[] {
  return lists.flat().sort((a, b) => compareNewestFirst(a.output, b.output));
}

/** Bytes the pages read since the last collection, and the timer that collects them once the pages stop. */
let garbage = 0;
let collecting: NodeJS.Timeout | undefined;
const COLLECT_IDLE_MS = 1000;

/**
 * The copies a page read are garbage once it replies: collected (a full collection, worker/collectGarbage.ts)
 * once no page has come for COLLECT_IDLE_MS, so the next page of a search does not wait for it. One a
 * page cost a third of every page of a common pattern, and one a copy more.
 */
function collectWhenIdle(bytes: number): void {
  garbage += bytes;
  clearTimeout(collecting);
  collecting = setTimeout(() => {
    leftIn = undefined;
    collectGarbageInWorker(garbage);
    garbage = 0;
  }, COLLECT_IDLE_MS);
  collecting.unref();
}

/**
 * The copy the last page ended inside, when it was read whole, for the next page, which goes on in it:
 * read again, its rest cost every page of a common word a fifth more bytes read and inflated (802 MB
 * for 671). Let go with the pages' garbage once no page comes (collectWhenIdle), or by the next page.
 */
let leftIn: { view: ScanView; outputId: string; bytes: Buffer } | undefined;

/**
 * The trigrams of each literal a match must contain (chunkGrams.ts `literalGrams`), or undefined when
 * the masks cannot narrow the search: a `whole` plan or no literals, a literal with a line break (a
 * match would not lie within whole lines), or one without a trigram every match holds.
 */
function gramQuery(search: CompiledSearch): LiteralGrams[] | undefined {
  // Made once per compiled search (the service keeps those): a literal's case variants took a page a quarter ms.
  if (!gramQueries.has(search)) gramQueries.set(search, literalsGrams(search));
  return gramQueries.get(search);
}

const gramQueries = new WeakMap<CompiledSearch, LiteralGrams[] | undefined>();

function literalsGrams(search: CompiledSearch): LiteralGrams[] | undefined {
  if (search.plan === 'whole' || search.literals.length === 0) return undefined;
  const query: LiteralGrams[] = [];
  for (const literal of search.literals) {
    if (literal.includes('\n') || Buffer.byteLength(literal) >= CHUNK_BYTES) return undefined;
    const grams = literalGrams(literal, search.caseSensitive, caseVariants);
    if (!grams) return undefined;
    query.push(grams);
  }
  return query;
}

/**
 * Searches one copy into `found`; resolves the bytes it covered (the copy's size), those it read, and the copy when it
 * was read whole. By the masks when the search has a query and the copy has them, else whole. `bounded`: `found`
 * stops at a few matches of this copy (its perOutput), so the copy is read in windows that double from one chunk,
 * and a common word's first matches cost a chunk or two, not the whole copy's inflating (a page of the tool's
 * defaults read 5.3 MB for 10 copies).
 */
async function searchCopy(
  view: ScanView,
  info: OutputInfo,
  search: CompiledSearch,
  grams: LiteralGrams[] | undefined,
  found: MatchCollector,
  control: StepControl,
  from: number,
  bounded: boolean,
): Promise<{ bytes: number; read: number; whole?: Buffer }> {
  const { outputId } = info;
  const kept = leftIn;
  leftIn = undefined;
  // Bytes of a copy never change once written, so its outputId and size name them.
  if (from > 0 && kept?.view === view && kept.outputId === outputId && kept.bytes.length === info.totalBytes) {
    await searchWhole(kept.bytes, search, from, found, control);
    scanCounts.keptCopies++;
    return { bytes: kept.bytes.length, read: 0, whole: kept.bytes };
  }
  const copy = grams && (await view.indexed(info, grams));
  // The chunks where a match at or after `from` can start.
  const chunks = copy ? copy.candidates.filter((k) => (k + 1) * CHUNK_BYTES > from) : [];
  // Every chunk a candidate and every match wanted: one read of the whole copy costs less than its windows.
  if (!copy || (from === 0 && chunks.length === copy.chunkCount && !bounded)) {
    const bytes = await view.readAll(outputId);
    await searchWhole(bytes, search, from, found, control);
    scanCounts.wholeCopies++;
    scanCounts.wholeBytes += bytes.length;
    return { bytes: bytes.length, read: bytes.length, whole: bytes };
  }
  if (chunks.length === 0) scanCounts.skippedCopies++;
  let read = 0;
  // Where the lines searched so far end: a match before it is another window's (or, at first, the cursor's).
  let done = from;
  // Candidate chunks a window may take (bounded: one, then twice as many each window).
  let cap = bounded ? 1 : Infinity;
  for (let at = 0; at < chunks.length && !found.full; cap *= 2) {
    // Chunks wholly inside lines a window already searched.
    while (at < chunks.length && (chunks[at] + 1) * CHUNK_BYTES <= done) at++;
    if (at === chunks.length) break;
    // A run of consecutive candidate chunks, then the lines around it; runs whose lines meet are one window.
    const first = at;
    let last = at;
    const extend = () => {
      while (last + 1 < chunks.length && chunks[last + 1] === chunks[last] + 1 && last + 1 - first < cap) last++;
    };
    extend();
    const window = await linesAround(
      view,
      outputId,
      copy,
      Math.max(done, chunks[at] * CHUNK_BYTES),
      Math.min(copy.totalBytes, (chunks[last] + 1) * CHUNK_BYTES),
    );
    at = last + 1;
    while (at < chunks.length && chunks[at] * CHUNK_BYTES < window.end && at - first < cap) {
      last = at;
      extend();
      const more = await linesAround(view, outputId, copy, window.acceptFrom, Math.min(copy.totalBytes, (chunks[last] + 1) * CHUNK_BYTES));
      Object.assign(window, more);
      at = last + 1;
    }
    // The window's whole lines are its own: a regular expression's match can start before the chunk its
    // literal is in, on the same line, and a window cut at its cap ends inside a run whose next line it holds.
    window.search.acceptFrom = Math.max(0, done - window.search.base);
    window.search.acceptBefore = window.bytes.length;
    done = window.end;
    scanCounts.windows++;
    scanCounts.windowBytes += window.bytes.length;
    read += window.bytes.length;
    await runSliced(searchWindow(search, window.search, found), control);
  }
  return { bytes: copy.totalBytes, read };
}

/** A whole copy's matches that start at `from` or after. */
const searchWhole = (bytes: Buffer, search: CompiledSearch, from: number, found: MatchCollector, control: StepControl): Promise<void> =>
  runSliced(searchWindow(search, { ...wholeWindow(bytes), acceptFrom: from }, found), control);

const asBuffer = (part: Uint8Array): Buffer => (Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength));

/**
 * The window that searches the matches starting in [acceptFrom, acceptBefore) of a copy exactly as the
 * whole copy's search finds them: from the start of the line holding `acceptFrom` to the end of the
 * line holding the byte before `acceptBefore`. A match (or a literal, or a line a regular expression
 * is run on) lies within its line, and a search of whole lines sees them as the whole copy's does; its
 * line number comes from the copy's line facts. Read a chunk more each side, then on while a line runs on.
 */
async function linesAround(
  view: ScanView,
  outputId: string,
  copy: IndexedCopy,
  acceptFrom: number,
  acceptBefore: number,
): Promise<{ acceptFrom: number; end: number; bytes: Buffer; search: SearchWindow }> {
  const total = copy.totalBytes;
  // From a chunk's start (the line facts count line breaks by blocks), a chunk before the one holding acceptFrom.
  let from = Math.max(0, (Math.floor(acceptFrom / CHUNK_BYTES) - 1) * CHUNK_BYTES);
  let to = Math.min(total, acceptBefore + CHUNK_BYTES);
  let bytes = asBuffer((await view.slice(outputId, from, to)).bytes);
  let start: number | undefined;
  while (start === undefined) {
    const newline = acceptFrom > from ? bytes.lastIndexOf(0x0a, acceptFrom - from - 1) : -1;
    if (newline >= 0) start = from + newline + 1;
    else if (from === 0) start = 0;
    else {
      const earlier = Math.max(0, from - CHUNK_BYTES);
      bytes = Buffer.concat([asBuffer((await view.slice(outputId, earlier, from)).bytes), bytes]);
      from = earlier;
    }
  }
  let end: number;
  for (;;) {
    const newline = bytes.indexOf(0x0a, acceptBefore - 1 - from);
    if (newline >= 0 || to === total) {
      end = newline >= 0 ? from + newline + 1 : total;
      break;
    }
    const later = Math.min(total, to + CHUNK_BYTES);
    bytes = Buffer.concat([bytes, asBuffer((await view.slice(outputId, to, later)).bytes)]);
    to = later;
  }
  // Line breaks before `from` (a chunk's start, so a block's), then those up to the line's start.
  const breaks = copy.lines.before[from / copy.lines.blockBytes] + countNewlines(bytes, 0, start - from);
  const window = bytes.subarray(start - from, end - from);
  return {
    acceptFrom,
    end,
    bytes: window,
    search: {
      bytes: window,
      base: start,
      acceptFrom: acceptFrom - start,
      acceptBefore: acceptBefore - start,
      line: breaks + 1,
      lineStart: start,
    },
  };
}
