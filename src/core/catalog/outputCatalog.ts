/**
 * Every retained output a front end can find: its own session's, its earlier sessions' and the
 * other agents' of the same workspace (the session folders it is given). Another session is only
 * ever read through a read-only view and only when it is named (`session`), so a bare outputId still
 * resolves in the current session alone (the seed's isolation). Listing reads indexes, never copies;
 * a search across outputs runs on the search lane, whose worker reads the sessions itself
 * (workers/sessionScan.ts).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError } from '../errors';
import { isSessionIdShape } from '../ids';
import { DEFAULT_SEARCH_TIMEOUT_MS, SearchLane } from '../search/lane';
import { checkSearchRequest } from '../search';
import { openReadOnlySession, type ReadOnlySession } from '../store/readOnlySession';
import { readSessionAgent } from '../store/sessionAgent';
import { sessionsIn } from '../store/sessionFiles';
import type { ListedOutput, SearchAcrossResult, SearchOptions, StoreReads } from '../types';
import { defaultExecArgv, defaultWorkerPath } from '../worker/script';
import { compareNewestFirst, isAfter, keyOf, listedOutput } from '../workers/listedOutput';
import { STORE_ENGINES } from '../workers/stores';
import { decodeCursor, encodeCursor } from './cursor';

/** A folder of session files, and whose they are when no agent record names them. */
export interface SessionFolder {
  dir: string;
  /** `VS Code` for the extension's folder; undefined for the agents' folder (each session's record names its agent). */
  owner?: string;
}

export interface CatalogOptions {
  /** The folders in scope, the front end's own first (the current session is there). */
  folders: () => Promise<readonly SessionFolder[]>;
  /** The session the front end writes now. */
  current: () => Promise<StoreReads>;
  /** The worker script and its Node options (as for the store worker). */
  workerPath?: string;
  execArgv?: string[];
  /** How long each sign of use holds a warm lane (WARM_HOLD_MS; tests shorten them). */
  warmHolds?: Partial<Record<WarmSign, number>>;
}

export interface CatalogSession {
  sessionId: string;
  file: string;
  current: boolean;
  /** Who wrote it: the folder's owner, else the clients its MCP server served. */
  agents?: string[];
  modifiedAt: number;
}

/** `current` (default), `all` (every session in scope), or one session's id. */
export type SessionScope = string | undefined;

export interface ListQuery {
  session?: SessionScope;
  tool?: string;
  agent?: string;
  /** Only outputs retained at or after this time (epoch ms). */
  since?: number;
  exit?: 'ok' | 'failed';
  /** Text the title (the command) contains, any case. */
  text?: string;
  cursor?: string;
  limit: number;
}

export interface ListPage {
  rows: ListedOutput[];
  /** Rows that pass the filters, in all. */
  matching: number;
  nextCursor?: string;
  /** Sessions searched, and those that could not be read. */
  sessions: number;
  unreadable: { sessionId: string; reason: string }[];
}

export interface AcrossOptions extends SearchOptions {
  session?: SessionScope;
  perOutput: number;
  cursor?: string;
  /** ms after which a page ends with a cursor (default: the search's time limit less a margin). */
  pageMs?: number;
  /** The tool whose input this is (for messages). */
  tool: string;
}

/** How long the lane is held after a page: a model's next page comes within seconds. */
const LANE_IDLE_MS = 60_000;
/**
 * What a warm-up is a sign of, and how long the warm lane is held after it: whoever is using our tools (an
 * agent's calls, a person at the search box) may search minutes later; a client that has only listed the
 * tools for its model (an MCP server's start) may never call them, and the worker and its views (35 MiB
 * over 10 sessions, 85 over 40) go sooner. Then a later use warms again.
 */
export type WarmSign = 'use' | 'tools listed';
const WARM_HOLD_MS: Record<WarmSign, number> = { use: 10 * 60_000, 'tools listed': 3 * 60_000 };

/** A page's time: well inside the lane's limit, so a page ends with a cursor and never with TIMEOUT. */
const DEFAULT_PAGE_MS = DEFAULT_SEARCH_TIMEOUT_MS / 2;

export class OutputCatalog {
  private readonly views = new Map<string, Promise<ReadOnlySession>>();
  private closed = false;
  private lane: SearchLane | undefined;
  private warming: Promise<void> | undefined;
  /** How long the warm lane is held after its last use: the longest its signs of use asked for. */
  private warmHoldMs = 0;
  /** The warm-up has ended: from then on the lane is held warmHoldMs after its last use (LANE_IDLE_MS before). */
  private warmedUp = false;
  private laneIdle: NodeJS.Timeout | undefined;
  /** The scope of a search's last page, and the folders' state it was listed in (continuedScope). */
  private lastScope: { key: string; sessions: CatalogSession[] } | undefined;

  constructor(private readonly options: CatalogOptions) {}

  /**
   * Starts the search worker and has it open every session in scope and read its index and its
   * copies' masks (sql.js loaded, views open, each copy's mask summary made), as a search would first;
   * resolves when done. Called on a sign of use (the end of any tool call: registry.ts; the Search All Outputs box
   * opening; an MCP client listing the tools for its model: mcp/server.ts), never at a window's start. Once per lane,
   * which is then held after its last use as long as the longest of its signs asks (WARM_HOLD_MS; a later sign
   * holds it anew); a failure only leaves the first search to do it.
   */
  warm(sign: WarmSign = 'use'): Promise<void> {
    this.warmHoldMs = Math.max(this.warming ? this.warmHoldMs : 0, this.options.warmHolds?.[sign] ?? WARM_HOLD_MS[sign]);
    if (this.warming) {
      this.holdLane();
      return this.warming;
    }
    this.warmedUp = false;
    const warming: Promise<void> = (async () => {
      if (this.closed) return;
      // The worker starts while the sessions are listed: an MCP server's own session may still be opening.
      this.searchLane().start();
      const scope = await this.sessions();
      await this.searchLane().search({
        pattern: 'warm',
        options: {},
        subject: 'the warm-up of the search worker',
        timeoutMs: DEFAULT_SEARCH_TIMEOUT_MS,
        source: async () => ({
          source: {
            kind: 'sessions',
            sessions: scope.map(({ sessionId, file }) => ({ sessionId, file })),
            perOutput: 1,
            pageMs: 0,
            warmOnly: true,
          },
        }),
      });
    })()
      .catch(() => undefined)
      .finally(() => {
        // Its end is the warm-up's last use of the lane: the hold counts from there (unless the lane went meanwhile).
        if (this.warming !== warming || this.closed) return;
        this.warmedUp = true;
        this.holdLane();
      });
    this.warming = warming;
    return warming;
  }

  /** Whether the lane is held warm now (tests look). */
  get warmed(): boolean {
    return this.warming !== undefined;
  }

  /** Every session in scope, the current one first, then the most recently written. */
  async sessions(): Promise<CatalogSession[]> {
    const current = await this.options.current();
    const found: CatalogSession[] = [];
    for (const folder of await this.options.folders()) {
      for (const session of await sessionsIn(folder.dir)) {
        if (found.some((known) => known.sessionId === session.sessionId)) continue;
        const agents = folder.owner ? [folder.owner] : (await readSessionAgent(session.file))?.clients.map((client) => client.name);
        found.push({
          sessionId: session.sessionId,
          file: session.file,
          current: session.sessionId === current.sessionId,
          ...(agents?.length ? { agents } : {}),
          modifiedAt: session.modifiedAt,
        });
      }
    }
    // A session opened a moment ago may not be listed yet, and a catalog without folders has only it.
    if (!found.some((session) => session.current)) {
      found.push({ sessionId: current.sessionId, file: current.file, current: true, modifiedAt: Date.now() });
    }
    return found.sort((a, b) => Number(b.current) - Number(a.current) || b.modifiedAt - a.modifiedAt);
  }

  /**
   * The reads of one session: the current store, or another session's read-only view. NOT_FOUND,
   * naming the sessions there are, for an id that is not in scope.
   */
  async reads(sessionId: string, tool: string): Promise<StoreReads> {
    const current = await this.options.current();
    if (sessionId === current.sessionId) return current;
    const session = (await this.sessions()).find((known) => known.sessionId === sessionId);
    if (!session) throw await this.unknownSession(sessionId, tool);
    return this.view(session.file);
  }

  /** Rows of the outputs in scope that pass the query's filters, newest first, a page at a time. */
  async list(query: ListQuery, tool: string): Promise<ListPage> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, tool);
    const scope = await this.scope(query.session, tool);
    const unreadable: ListPage['unreadable'] = [];
    const rows: ListedOutput[] = [];
    for (const session of scope) {
      try {
        const reads = session.current ? await this.options.current() : await this.view(session.file);
        for (const info of await reads.list()) {
          const row = listedOutput(info, session.sessionId);
          if (session.agents) row.agents = session.agents;
          if (passes(row, query)) rows.push(row);
        }
      } catch (error) {
        unreadable.push({ sessionId: session.sessionId, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    rows.sort((a, b) => compareNewestFirst(keyOf(a), keyOf(b)));
    const rest = rows.filter((row) => isAfter(keyOf(row), after));
    const page = rest.slice(0, query.limit);
    return {
      rows: page,
      matching: rows.length,
      ...(rest.length > page.length ? { nextCursor: encodeCursor(keyOf(page[page.length - 1])) } : {}),
      sessions: scope.length,
      unreadable,
    };
  }

  /**
   * A page of a search of every readable output in scope, newest output first: at most `perOutput`
   * matches an output and `maxMatches` in all, and a cursor while outputs remain unsearched (with
   * `perOutput` at or above `maxMatches`, no bound per output: a page full inside an output ends
   * there, and its cursor continues in it). Cancelling (`signal`) stops it between slices.
   */
  async searchAcross(pattern: string, options: AcrossOptions): Promise<SearchAcrossResult> {
    const { session, perOutput, cursor, pageMs = DEFAULT_PAGE_MS, tool, signal, ...searchOptions } = options;
    checkSearchRequest('', pattern, searchOptions);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, tool);
    // The worker starts while the sessions are listed (in a fresh process it takes most of the first page).
    const lane = this.searchLane();
    lane.start();
    const scope = after ? await this.continuedScope(session, tool) : await this.scope(session, tool);
    const agents = new Map(scope.map((known) => [known.sessionId, known.agents]));
    const outcome = await lane.search({
      pattern,
      options: searchOptions,
      subject: `the outputs of ${scope.length === 1 ? `session ${scope[0].sessionId}` : `${scope.length} sessions`}`,
      timeoutMs: DEFAULT_SEARCH_TIMEOUT_MS,
      signal,
      source: async () => ({
        source: {
          kind: 'sessions',
          sessions: scope.map(({ sessionId, file }) => ({ sessionId, file })),
          ...(after ? { after } : {}),
          perOutput,
          pageMs,
        },
      }),
    });
    const across = outcome.across;
    // Only a worker of another build could answer a sessions search without its page.
    if (!across) throw new RecallError('STORE_UNAVAILABLE', 'The search worker answered a search across outputs without a page.');
    const { next, ...page } = across;
    for (const group of page.groups) {
      const who = agents.get(group.output.sessionId);
      if (who) group.output.agents = who;
    }
    return { ...page, ...(next ? { cursor: encodeCursor(next) } : {}) };
  }

  /**
   * The search lane: its worker keeps sql.js and the sessions' views it opened, so a search after the
   * first (or after the warm-up) neither starts a worker nor reads every index again. It is released a
   * while after its last use (holdLane). An idle worker does not keep the process alive (worker/host.ts unrefs it).
   */
  private searchLane(): SearchLane {
    this.holdLane();
    if (!this.lane) {
      const script = path.resolve(this.options.workerPath ?? defaultWorkerPath());
      this.lane = SearchLane.acquire(script, this.options.execArgv ?? defaultExecArgv(script), 'sessions');
    }
    return this.lane;
  }

  /** Releases the lane once it has not been used for a while: warmHoldMs once warmed up, else LANE_IDLE_MS. */
  private holdLane(): void {
    clearTimeout(this.laneIdle);
    this.laneIdle = setTimeout(() => this.releaseLane(), this.warming && this.warmedUp ? this.warmHoldMs : LANE_IDLE_MS);
    this.laneIdle.unref();
  }

  private releaseLane(): void {
    clearTimeout(this.laneIdle);
    this.lane?.release();
    this.lane = undefined;
    this.warming = undefined;
    this.warmedUp = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.releaseLane();
    const views = [...this.views.values()];
    this.views.clear();
    await Promise.all(views.map((opening) => opening.then((view) => view.close()).catch(() => undefined)));
  }

  /**
   * The sessions a scope names for the next page of a search: the last page's when no folder in scope changed
   * since (its entries: a session made, deleted or checkpointed renames or adds a file there). Listing the folders
   * again (a stat of every session's files and its agent record) cost each page of a common word's search more
   * than the worker waited for; a session made since holds only outputs newer than the cursor, which the next
   * pages skip in any case.
   */
  private async continuedScope(scope: SessionScope, tool: string): Promise<CatalogSession[]> {
    const [current, folders] = await Promise.all([this.options.current(), this.options.folders()]);
    const marks = await Promise.all(
      folders.map((folder) =>
        fs.stat(folder.dir).then(
          (stat) => `${folder.dir}\0${stat.mtimeMs}`,
          () => '',
        ),
      ),
    );
    const key = JSON.stringify([scope ?? 'current', current.sessionId, marks]);
    if (this.lastScope?.key === key) return this.lastScope.sessions;
    const sessions = await this.scope(scope, tool);
    this.lastScope = { key, sessions };
    return sessions;
  }

  /** The sessions a scope names. */
  private async scope(scope: SessionScope, tool: string): Promise<CatalogSession[]> {
    const sessions = await this.sessions();
    if (scope === undefined || scope === 'current') return sessions.filter((session) => session.current);
    if (scope === 'all') return sessions;
    const named = sessions.find((session) => session.sessionId === scope);
    if (!named) throw await this.unknownSession(scope, tool, sessions);
    return [named];
  }

  private async unknownSession(sessionId: string, tool: string, sessions?: CatalogSession[]): Promise<RecallError> {
    const known = (sessions ?? (await this.sessions())).slice(0, 10).map((session) => session.sessionId);
    const shape = isSessionIdShape(sessionId) ? '' : ' (not a session id: one looks like s20261206-ea8a277c1461)';
    return new RecallError(
      'NOT_FOUND',
      `There is no session ${JSON.stringify(sessionId)} in this workspace${shape}. Sessions here, newest first: ${known.join(', ') || 'none'}. List outputs of every session with list_tool_outputs {"session":"all"}.`,
    );
  }

  /** A read-only view of another session, kept and read again when its files changed. */
  private async view(file: string): Promise<ReadOnlySession> {
    if (this.closed) throw new RecallError('STORE_CLOSED', 'The output catalog is closed.');
    let opening = this.views.get(file);
    if (!opening) {
      opening = openReadOnlySession(file, STORE_ENGINES);
      this.views.set(file, opening);
      opening.catch(() => this.views.delete(file));
      return opening;
    }
    const view = await opening;
    await view.refresh();
    return view;
  }
}

function passes(row: ListedOutput, query: ListQuery): boolean {
  if (query.tool !== undefined && row.tool !== query.tool) return false;
  if (query.agent !== undefined && !(row.agents ?? []).some((agent) => agent.toLowerCase().includes(query.agent!.toLowerCase())))
    return false;
  if (query.since !== undefined && row.createdAt < query.since) return false;
  if (query.text !== undefined && !(row.title ?? '').toLowerCase().includes(query.text.toLowerCase())) return false;
  if (query.exit !== undefined) {
    const failed = row.signal !== undefined || (typeof row.exitCode === 'number' && row.exitCode !== 0) || row.exitCode === null;
    const ok = row.exitCode === 0;
    if (query.exit === 'failed' ? !failed : !ok) return false;
  }
  return true;
}
