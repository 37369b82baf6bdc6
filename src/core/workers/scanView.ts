/**
 * The search worker's read-only views of the sessions it searches across (sessionScan.ts): kept open
 * between searches, each with what its searches read once per version of its index (its listing, its
 * copies' chunk sizes and placements) and a summary of each copy's trigram masks.
 */
import type { Database } from 'sql.js';
import { DEFAULT_LIMITS } from '../limits';
import { candidateChunks, orOfMasks, type LiteralGrams } from '../store/chunkGrams';
import { CHUNK_BYTES } from '../store/chunks';
import { summariesOf } from '../store/copySummaries';
import { layoutOf } from '../store/database';
import { ReadOnlySession } from '../store/readOnlySession';
import { toInfo, type OutputRow } from '../store/outputRows';
import { recordedLines } from '../store/rowReads';
import { SegmentCache, chunksOfRuns, type ChunkRow } from '../store/segments';
import { placedGrams, placementsByCopy, type PlacementRow } from '../store/segmentGrams';
import { queryRows } from '../store/schema';
import type { LineFacts, ListedOutput, OutputInfo } from '../types';
import { compareNewestFirst, listedOutput } from './listedOutput';
import { STORE_ENGINES } from './stores';

/**
 * Copies whose chunks' masks the views read (a summary in the index spares them), and views opened, since the worker
 * started (tests look).
 */
export const viewCounts = { masksRead: 0, opened: 0 };

/** What a search by chunks needs of a copy: its size, its line facts and the chunks where a literal can start. */
export interface IndexedCopy {
  totalBytes: number;
  lines: LineFacts;
  chunkCount: number;
  candidates: number[];
}

/**
 * What the masks' reads take from one version of a view's index, read once: its layout, and per copy its
 * chunk size, placements and the summary its checkpoint recorded (copySummaries.ts).
 */
interface IndexFacts {
  layout: 1 | 2;
  chunkBytes: Map<string, number>;
  placements: Map<string, PlacementRow[]>;
  summaries: Map<string, Uint8Array>;
}

/**
 * A read-only view that also reads its copies' trigram masks (from its own map of the segments: they
 * never change), and a summary of each copy's: the OR of its chunks' masks. Every trigram of a copy is
 * in it, so a copy whose summary lacks a trigram of each literal holds no match, and its chunks' masks
 * are not read. The summary is the one its checkpoint recorded in the index; a copy checkpointed
 * before summaries gets one made here when its masks are first read (2 KiB, kept while the view is).
 */
export class ScanView extends ReadOnlySession {
  private gramSegments: SegmentCache | undefined;
  private facts: { db: Database; facts: IndexFacts } | undefined;
  private listing: { db: Database; sessionId: string; copies: Listed[]; rows: Map<string, OutputRow> } | undefined;
  private readonly summaries = new Map<string, Uint8Array>();

  /** Its readable copies and their rows, newest first, read once per version of the index (a search's pages list them each). */
  async listed(sessionId: string): Promise<Listed[]> {
    const db: Database = this.index();
    if (this.listing?.db !== db || this.listing.sessionId !== sessionId) {
      const rows = this.rows().filter((row) => !row.evicted);
      this.listing = {
        db,
        sessionId,
        // In the order a search takes them: a page merges the sessions' listings, and sorted runs merge in one pass.
        copies: rows
          .map(toInfo)
          .map((info) => ({ info, output: listedOutput(info, sessionId), view: this }))
          .sort((a, b) => compareNewestFirst(a.output, b.output)),
        rows: new Map(rows.map((row) => [row.id, row])),
      };
    }
    return this.listing.copies;
  }

  /**
   * A listed copy's row without a query: a search reads each copy it searches by its row, once or more (a query
   * each cost a common word's every page a tenth of its time). Anything else is looked up as ever.
   */
  protected override lookup(outputId: string, allowEvicted = false): OutputRow {
    const row = this.listing?.db === this.index() ? this.listing.rows.get(outputId) : undefined;
    return row ?? super.lookup(outputId, allowEvicted);
  }

  /** A copy's chunks by the placements read once per version of the index (indexFacts), not a query per read. */
  protected override fetch(outputId: string, first: number, last: number): ChunkRow[] {
    const facts = this.indexFacts();
    if (facts.layout !== 2) return super.fetch(outputId, first, last);
    return chunksOfRuns(facts.placements.get(outputId) ?? [], this.segments, outputId, first, last);
  }

  /**
   * The line facts of the copy `info` lists and the chunks where one of the literals can start, or
   * undefined when it must be searched whole: a layout-1 session, a copy still pending in the journal
   * (no chunk placed), chunks of another size, or no line facts.
   */
  indexed(info: OutputInfo, query: LiteralGrams[]): Promise<IndexedCopy | undefined> {
    return this.reading(() => {
      const facts = this.indexFacts();
      const totalBytes = info.totalBytes;
      if (facts.layout !== 2 || facts.chunkBytes.get(info.outputId) !== CHUNK_BYTES || totalBytes === 0) return undefined;
      const lines = recordedLines(info.extra?.lines, totalBytes);
      if (!lines || CHUNK_BYTES % lines.blockBytes !== 0) return undefined;
      // No chunk placed: the copy is pending (its content is the journal's), searched whole.
      const placements = facts.placements.get(info.outputId);
      if (!placements) return undefined;
      const chunkCount = Math.ceil(totalBytes / CHUNK_BYTES);
      const summary = this.summaries.get(info.outputId) ?? facts.summaries.get(info.outputId);
      if (summary && candidateChunks([summary], query).length === 0) return { totalBytes, lines, chunkCount, candidates: [] };
      const masks = this.masks(info.outputId, placements, chunkCount);
      return { totalBytes, lines, chunkCount, candidates: candidateChunks(masks, query) };
    });
  }

  /** Pages reading this view now: it is not closed under them (trimViews). */
  private pages = 0;

  /** Keeps the segment files a search's page reads open until `endPage` (SegmentCache.hold). */
  beginPage(): void {
    this.pages++;
    this.segments.hold();
    (this.gramSegments ??= new SegmentCache(this.file)).hold();
  }

  endPage(): void {
    if (this.pages === 0) return;
    this.pages--;
    this.segments.release();
    this.gramSegments?.release();
  }

  get inPage(): boolean {
    return this.pages > 0;
  }

  /**
   * Reads what every search reads first: the index, and the masks of each copy whose checkpoint recorded no summary, for
   * one (a warm-up: see SessionsSource.warmOnly).
   */
  async warm(sessionId: string): Promise<void> {
    const copies = await this.listed(sessionId);
    await this.reading(() => {
      const { layout, chunkBytes, placements, summaries } = this.indexFacts();
      if (layout !== 2) return;
      for (const { info } of copies) {
        const placed = placements.get(info.outputId);
        if (this.summaries.has(info.outputId) || summaries.has(info.outputId) || !placed || chunkBytes.get(info.outputId) !== CHUNK_BYTES)
          continue;
        this.masks(info.outputId, placed, Math.ceil(info.totalBytes / CHUNK_BYTES));
      }
    });
  }

  /** A copy's chunks' masks, from its placements; its summary made when every chunk has one, of one size. */
  private masks(outputId: string, placements: PlacementRow[], chunkCount: number): (Uint8Array | undefined)[] {
    this.gramSegments ??= new SegmentCache(this.file);
    viewCounts.masksRead++;
    const masks = placedGrams(placements, this.gramSegments, outputId, chunkCount);
    const first = masks[0];
    if (first && masks.every((mask) => mask?.length === first.length)) {
      this.summaries.set(outputId, masks.length === 1 ? first : orOfMasks(masks as Uint8Array[]));
    }
    return masks;
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
        facts:
          layout === 2
            ? { layout, chunkBytes, placements: placementsByCopy(db), summaries: summariesOf(db) }
            : { layout, chunkBytes, placements: new Map(), summaries: new Map() },
      };
    }
    return this.facts.facts;
  }

  override async close(): Promise<void> {
    this.endPage();
    this.gramSegments?.clear();
    this.summaries.clear();
    this.facts = undefined;
    this.listing = undefined;
    await super.close();
  }
}

async function openScanView(file: string): Promise<ScanView> {
  const view = new ScanView(file, DEFAULT_LIMITS.sessionQuotaBytes, STORE_ENGINES);
  viewCounts.opened++;
  await view.refresh();
  return view;
}

/**
 * Views kept open between searches, least recently used first: a view holds its index (a few hundred KiB to a few MiB)
 * and its copies' summaries. `limit` covers the default scope (two folders of `sessions.maxCount` 20); past it, the
 * least recently used view that no page reads is closed. A page reads every view in scope until it ends, and a
 * search's scope is kept whole after it (sessionScan.ts), so its next page opens none again (tests lower the limit).
 */
export const viewCache = { limit: 64 };
const views = new Map<string, Promise<ScanView>>();
const opened = new Map<string, ScanView>();

/** The view of `file`, read again if its files changed since (`names`: its folder's listing, just taken). */
export async function viewOf(file: string, names?: string[]): Promise<ScanView> {
  let opening = views.get(file);
  if (!opening) {
    trimViews(viewCache.limit - 1);
    opening = openScanView(file);
    views.set(file, opening);
    opening.then(
      (view) => opened.set(file, view),
      () => views.delete(file),
    );
    return opening;
  }
  // Used now: the last to be closed.
  views.delete(file);
  views.set(file, opening);
  const view = await opening;
  await view.refresh(names);
  return view;
}

/**
 * Closes the least recently used views until at most `limit` are open, none that a page reads or that is still
 * opening. Closing one a page listed made that page's later copies of it unreadable (STORE_CLOSED): in a scope of
 * more sessions than the limit, every page closed views it had listed, and their hits were lost.
 */
export function trimViews(limit = viewCache.limit): void {
  for (const file of [...views.keys()]) {
    if (views.size <= limit) return;
    const view = opened.get(file);
    if (!view || view.inPage) continue;
    views.delete(file);
    opened.delete(file);
    void view.close().catch(() => undefined);
  }
}

/** A listed copy, and the view to read it from. */
export interface Listed {
  info: OutputInfo;
  output: ListedOutput;
  view: ScanView;
}
