/**
 * A search across outputs, as the search worker runs it: the sessions in scope are read here,
 * read-only (readOnlySession.ts: no lock, no byte written, the owner's journal included), their
 * readable outputs taken newest first, and each copy searched until the page has its matches or its
 * time. One copy is held at a time; nothing crosses threads but the page.
 *
 * When the search has literals every match contains, a copy in segments is searched by its chunks'
 * trigram masks (store/chunkGrams.ts): only the chunks where a literal can start are read and
 * searched, each within whole lines around it, so the matches are the whole copy's; a copy with no
 * such chunk is not read at all. Without masks or line facts, or still pending in the journal, a
 * copy is searched whole.
 */
import type { Database } from 'sql.js';
import { RecallError, describeError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { MatchCollector, searchWindow, wholeWindow, type CompiledSearch, type SearchWindow } from '../search';
import type { OutputKey, SearchOutcome, SessionsSource } from '../search/protocol';
import { caseVariants } from '../search/scanners';
import { checkStopped, runSliced, type StepControl } from '../search/sliced';
import { candidateChunks, literalGrams, type LiteralGrams } from '../store/chunkGrams';
import { CHUNK_BYTES } from '../store/chunks';
import { layoutOf } from '../store/database';
import { ReadOnlySession } from '../store/readOnlySession';
import { recordedLines } from '../store/rowReads';
import { SegmentCache, placedGrams, placementsByCopy, type PlacementRow } from '../store/segments';
import { queryRows } from '../store/schema';
import type { LineFacts, ListedOutput, OutputHits, OutputInfo } from '../types';
import { countNewlines } from '../utf8';
import { collectGarbageInWorker } from '../worker/collectGarbage';
import { compareNewestFirst, isAfter, keyOf, listedOutput } from './listedOutput';
import { STORE_ENGINES } from './stores';

/** What a search by chunks needs of a copy: its size, its line facts and its chunks' masks. */
interface IndexedCopy {
  totalBytes: number;
  lines: LineFacts;
  masks: (Uint8Array | undefined)[];
}

/** What the masks' reads take from one version of a view's index, read once: its layout, and per copy its chunk size and placements. */
interface IndexFacts {
  layout: 1 | 2;
  chunkBytes: Map<string, number>;
  placements: Map<string, PlacementRow[]>;
}

/** A read-only view that also reads its copies' trigram masks (from its own map of the segments: they never change). */
class ScanView extends ReadOnlySession {
  private gramSegments: SegmentCache | undefined;
  private facts: { db: Database; facts: IndexFacts } | undefined;
  private listing: { db: Database; infos: OutputInfo[] } | undefined;

  /** Its copies, as `list` gives them, read once per version of the index (a search's pages list them each). */
  async listed(): Promise<OutputInfo[]> {
    const db: Database = this.index();
    if (this.listing?.db !== db) this.listing = { db, infos: await this.list() };
    return this.listing.infos;
  }

  /**
   * The masks and line facts of the copy `info` lists, or undefined when it must be searched whole: a
   * layout-1 session, a copy still pending in the journal (no chunk placed), chunks of another size,
   * or no line facts.
   */
  indexed(info: OutputInfo): Promise<IndexedCopy | undefined> {
    return this.reading(() => {
      const facts = this.indexFacts();
      const totalBytes = info.totalBytes;
      if (facts.layout !== 2 || facts.chunkBytes.get(info.outputId) !== CHUNK_BYTES || totalBytes === 0) return undefined;
      const lines = recordedLines(info.extra?.lines, totalBytes);
      if (!lines || CHUNK_BYTES % lines.blockBytes !== 0) return undefined;
      // No chunk placed: the copy is pending (its content is the journal's), searched whole.
      const placements = facts.placements.get(info.outputId);
      if (!placements) return undefined;
      this.gramSegments ??= new SegmentCache(this.file);
      const masks = placedGrams(placements, this.gramSegments, info.outputId, Math.ceil(totalBytes / CHUNK_BYTES));
      return { totalBytes, lines, masks };
    });
  }

  private indexFacts(): IndexFacts {
    const db: Database = this.index();
    if (this.facts?.db !== db) {
      const layout = layoutOf(db, this.file);
      const chunkBytes = new Map(
        queryRows<{ id: string; chunk_bytes: number }>(db, 'SELECT id, chunk_bytes FROM outputs').map((row) => [row.id, row.chunk_bytes]),
      );
      this.facts = {
        db,
        facts: { layout, chunkBytes, placements: layout === 2 ? placementsByCopy(db) : new Map<string, PlacementRow[]>() },
      };
    }
    return this.facts.facts;
  }

  override async close(): Promise<void> {
    this.gramSegments?.clear();
    this.facts = undefined;
    this.listing = undefined;
    await super.close();
  }
}

async function openScanView(file: string): Promise<ScanView> {
  const view = new ScanView(file, DEFAULT_LIMITS.sessionQuotaBytes, STORE_ENGINES);
  await view.refresh();
  return view;
}

/** Views kept open between searches (a view's index is a few hundred KiB; a session file, an open descriptor). */
const MAX_VIEWS = 32;
const views = new Map<string, Promise<ScanView>>();

/** The view of `file`, read again if its files changed since. */
async function viewOf(file: string): Promise<ScanView> {
  let opening = views.get(file);
  if (!opening) {
    if (views.size >= MAX_VIEWS) {
      const [oldest, view] = views.entries().next().value as [string, Promise<ScanView>];
      views.delete(oldest);
      void view.then((v) => v.close()).catch(() => undefined);
    }
    opening = openScanView(file);
    views.set(file, opening);
    opening.catch(() => views.delete(file));
    return opening;
  }
  const view = await opening;
  await view.refresh();
  return view;
}

interface Candidate {
  output: ListedOutput;
  info: OutputInfo;
  view: ScanView;
}

/** What searches across outputs read, since the worker started (tests and measurements look). */
export const scanCounts = { wholeCopies: 0, wholeBytes: 0, skippedCopies: 0, windows: 0, windowBytes: 0 };

/** `useMasks`: false searches every copy whole, as before masks (tests and measurements compare the two). */
export async function scanSessions(
  source: SessionsSource,
  search: CompiledSearch,
  control: StepControl,
  useMasks = true,
): Promise<SearchOutcome> {
  const unreadable: { sessionId: string; reason: string }[] = [];
  const candidates: Candidate[] = [];
  for (const { sessionId, file } of source.sessions) {
    try {
      const view = await viewOf(file);
      for (const info of await view.listed()) {
        if (!info.evicted) candidates.push({ output: listedOutput(info, sessionId), info, view });
      }
    } catch (error) {
      unreadable.push({ sessionId, reason: describeError(error) });
    }
  }
  candidates.sort((a, b) => compareNewestFirst(keyOf(a.output), keyOf(b.output)));
  const grams = useMasks ? gramQuery(search) : undefined;
  const pageEnd = performance.now() + source.pageMs;
  const groups: OutputHits[] = [];
  let matches = 0;
  let searchedOutputs = 0;
  let searchedBytes = 0;
  let incompleteSearched = 0;
  let next: OutputKey | undefined;
  const todo = candidates.filter((candidate) => isAfter(keyOf(candidate.output), source.after));
  for (const [index, { output, info, view }] of todo.entries()) {
    // A page ends when it has its time (the first page comes back fast), or before an output whose
    // matches might not all fit it: an output is cut by its own perOutput alone (moreInOutput), never
    // by the page, so the cursor, which continues after the last output searched, skips no match.
    const room = search.maxMatches - matches;
    if (index > 0 && (room < Math.min(source.perOutput, search.maxMatches) || performance.now() > pageEnd)) {
      next = keyOf(todo[index - 1].output);
      break;
    }
    checkStopped(control);
    const found = new MatchCollector(Math.min(source.perOutput, room));
    let bytes: number;
    try {
      bytes = await searchCopy(view, info, search, grams, found, control);
    } catch (error) {
      // Removed or evicted by its owner since the listing: not an error of the search.
      if (error instanceof RecallError && (error.code === 'NOT_FOUND' || error.code === 'EVICTED')) continue;
      throw error;
    }
    searchedOutputs++;
    searchedBytes += bytes;
    if (!output.complete) incompleteSearched++;
    if (found.matches.length > 0) {
      groups.push({ output, matches: found.matches, truncated: found.truncated });
      matches += found.matches.length;
    }
  }
  // The copies read are garbage now: one collection a page (one a copy cost a third of a long search).
  collectGarbageInWorker(searchedBytes);
  return {
    matches: [],
    truncated: next !== undefined,
    totalBytes: searchedBytes,
    across: {
      groups,
      searchedOutputs,
      searchedBytes,
      incompleteSearched,
      outputsInScope: candidates.length,
      unreadable,
      ...(next ? { next } : {}),
    },
  };
}

/**
 * The trigrams of each literal a match must contain (chunkGrams.ts `literalGrams`), or undefined when
 * the masks cannot narrow the search: a `whole` plan or no literals, a literal with a line break (a
 * match would not lie within whole lines), or one without a trigram every match holds.
 */
function gramQuery(search: CompiledSearch): LiteralGrams[] | undefined {
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
 * Searches one copy into `found`; resolves the bytes it covered (the copy's size). By the masks when
 * the search has a query and the copy has them, else whole.
 */
async function searchCopy(
  view: ScanView,
  info: OutputInfo,
  search: CompiledSearch,
  grams: LiteralGrams[] | undefined,
  found: MatchCollector,
  control: StepControl,
): Promise<number> {
  const { outputId } = info;
  const copy = grams && (await view.indexed(info));
  const chunks = copy ? candidateChunks(copy.masks, grams) : [];
  // Every chunk a candidate: one read of the whole copy costs less than its windows.
  if (!copy || chunks.length === copy.masks.length) {
    const bytes = await view.readAll(outputId);
    await runSliced(searchWindow(search, wholeWindow(bytes), found), control);
    scanCounts.wholeCopies++;
    scanCounts.wholeBytes += bytes.length;
    return bytes.length;
  }
  if (chunks.length === 0) scanCounts.skippedCopies++;
  for (let at = 0; at < chunks.length && !found.full;) {
    // A run of consecutive candidate chunks, then the lines around it; runs whose lines meet are one window.
    let last = at;
    while (last + 1 < chunks.length && chunks[last + 1] === chunks[last] + 1) last++;
    const window = await linesAround(
      view,
      outputId,
      copy,
      chunks[at] * CHUNK_BYTES,
      Math.min(copy.totalBytes, (chunks[last] + 1) * CHUNK_BYTES),
    );
    at = last + 1;
    while (at < chunks.length && chunks[at] * CHUNK_BYTES < window.end) {
      last = at;
      while (last + 1 < chunks.length && chunks[last + 1] === chunks[last] + 1) last++;
      const more = await linesAround(view, outputId, copy, window.acceptFrom, Math.min(copy.totalBytes, (chunks[last] + 1) * CHUNK_BYTES));
      Object.assign(window, more);
      at = last + 1;
    }
    scanCounts.windows++;
    scanCounts.windowBytes += window.bytes.length;
    await runSliced(searchWindow(search, window.search, found), control);
  }
  return copy.totalBytes;
}

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
  let from = Math.max(0, acceptFrom - CHUNK_BYTES);
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
