/**
 * The one contract between the inspector webview and the extension host. Both sides import this
 * file; nothing else crosses the boundary. Shaped like gitlens' webview protocol: typed requests
 * that carry an id and get exactly one reply, fire-and-forget notifications in both directions, and
 * a ready handshake so the host never posts into a page that is not listening yet.
 *
 * Pages are always fetched on demand (at most MAX_PAGE_BYTES each); the whole copy never crosses.
 * Keep this file free of DOM and Node types: it is compiled by both tsconfigs.
 */
import type { DEFAULT_LIMITS } from '../src/core/limits';
import type { NotableMarks, OutputInfo, SearchMatch } from '../src/core/types';

export type { NotableMarks, OutputInfo, SearchMatch };

/** A session's counts and whether saving it keeps up: what the API, the status bar and the inspector show. */
export interface SessionStats {
  sessionId: string;
  outputs: number;
  retainedBytes: number;
  evicted: number;
  /** Retained bytes past which the oldest copies are evicted. */
  quotaBytes: number;
  /** Bytes of journal files on disk: outputs retained since the last checkpoint that succeeded. */
  journalBytes: number;
  /** Journal bytes past which `retain` rejects with STORE_UNAVAILABLE. */
  journalLimitBytes: number;
  /** Present while the latest checkpoint failed (`at` in epoch ms); absent once one succeeds. */
  lastCheckpointError?: { message: string; code?: string; at: number };
}

/**
 * The session an inspector's output belongs to, as the page shows it: named as a person knows it
 * (src/extension/sessions/sessionNames.ts) and, for an earlier session of this window, read-only with the way back.
 */
export interface SessionOrigin {
  sessionId: string;
  /** When it started, its first command, its outputs and size. */
  name: string;
  /** When it started and its first command: the session line, which gives the counts itself, names it so. */
  shortName?: string;
  /** This window's current session; otherwise an earlier one, shown read-only. */
  current: boolean;
}

/** Bumped on any incompatible change; a webview restored from an older build then reloads. */
export const PROTOCOL_VERSION = 1;

/** The webview panel type, shared by the serializer and the panel factory. */
export const INSPECTOR_VIEW_TYPE = 'toolOutputRecall.inspector';

/**
 * The largest page a request may ask for: the engine's page limit, DEFAULT_LIMITS.pageBytes. The
 * webview may not import src/ at run time (it is bundled for the browser alone), so the number is
 * written here again, checked against that limit's literal type: change one without the other and
 * neither tsconfig compiles.
 */
export const MAX_PAGE_BYTES = 4096 satisfies (typeof DEFAULT_LIMITS)['pageBytes'];

// ---------------------------------------------------------------------------------------------
// Payloads

export interface PreviewView {
  /** The preview text as the model received it, or undefined when it is unknown. */
  text?: string;
  /** 'recorded': the exact text stored at retain time; 'recomputed': rebuilt from the copy. */
  source: 'recorded' | 'recomputed' | 'unavailable';
  /** Why the preview is not shown, or what a recomputed one assumed. */
  note?: string;
  /** The omission marker's span in `text`, as UTF-16 indexes [start, end). */
  marker?: { start: number; end: number };
  /** The range of the copy the model did not see, in byte offsets [from, to). */
  omitted?: { from: number; to: number };
}

export interface StreamFacts {
  totalBytes: number;
  capturedBytes: number;
  droppedBytes: number;
  complete: boolean;
}

/** The run_command facts from `extra`, validated (extra is free-form JSON). */
export interface CommandFacts {
  command?: string;
  cwd?: string;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  cancelled?: boolean;
  stdout?: StreamFacts;
  stderr?: StreamFacts;
}

export interface DescribeResult {
  /** Info as the store reports it; `extra` is dropped (it can be large: see `preview`). */
  info: Omit<OutputInfo, 'extra'>;
  command: CommandFacts;
  preview: PreviewView;
  /** Lines in the copy, or undefined for an evicted copy. */
  totalLines?: number;
  /** Set when the copy cannot be read: the engine's code (EVICTED, STORE_UNAVAILABLE…) and a message for a person. */
  unreadable?: { code: string; message: string };
  /** The session the output belongs to; absent when the store could not say. */
  session?: SessionStats;
  /**
   * This window's session the output belongs to, by name; when it is not the current one the page
   * says the output is from an earlier session, read-only, with a button to make it current again
   * (the `switchSession` action). Absent for another agent's session, and in hosts without sessions.
   */
  origin?: SessionOrigin;
}

export type SnapMode =
  /** Use the offset as typed: a mid-character offset is an error (MID_CHARACTER_OFFSET). */
  | 'exact'
  /** Move to the nearest character boundary at or before the offset. */
  | 'before'
  /**
   * The slider: move to the start of the next line (the offset itself when a line starts there), so
   * a page never starts mid-line; the character boundary before it when no line starts within a page.
   */
  | 'line';

export interface PageParams {
  outputId: string;
  offset: number;
  maxBytes: number;
  snap: SnapMode;
}

/** The page that ends at `end`, as long as `maxBytes` allows (for "previous page"). */
export interface PageBeforeParams {
  outputId: string;
  end: number;
  maxBytes: number;
}

export interface PageResult {
  /** Where the page starts (a character boundary; differs from the request when snapped). */
  offset: number;
  requestedOffset: number;
  text: string;
  nextOffset: number;
  totalBytes: number;
  /** As `read` reported it for this page. */
  hasMore: boolean;
  complete: boolean;
  /** 1-based line of `offset`, and of the last byte of the page (same line for an empty page). */
  firstLine: number;
  lastLine: number;
}

export interface SearchParams {
  outputId: string;
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
}

export interface SearchResultView {
  matches: SearchMatch[];
  truncated: boolean;
}

/** `switchSession` makes the output's session (an earlier one: `DescribeResult.origin`) current again. */
export type HostAction = 'copyPage' | 'copyOutputId' | 'openInEditor' | 'saveAs' | 'switchSession';

export interface ActionParams {
  outputId: string;
  action: HostAction;
  /** The page on screen, for copyPage (the host re-reads it) and to place the editor's cursor. */
  offset?: number;
  end?: number;
  line?: number;
}

/** A failed request: the engine's error code (e.g. MID_CHARACTER_OFFSET) and its details. */
export interface ErrorView {
  code: string;
  /** Written for a person (src/extension/personMessages.ts), not the engine's message, which is for a model. */
  message: string;
  details?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Message maps: one entry per method. The helpers below derive the wire types from them.

export interface Requests {
  describe: { params: { outputId: string }; result: DescribeResult };
  page: { params: PageParams; result: PageResult };
  pageBefore: { params: PageBeforeParams; result: PageResult };
  search: { params: SearchParams; result: SearchResultView };
  /** Where the copy's notable lines are, for the overview and the list of notable lines. */
  notable: { params: { outputId: string }; result: NotableMarks };
  action: { params: ActionParams; result: { done: boolean; message?: string } };
}

/** Webview → host notifications. */
export interface WebviewNotifications {
  /** Sent once the page listens; the host answers with `show`. */
  ready: { protocolVersion: number };
}

/** Host → webview notifications. */
export interface HostNotifications {
  /**
   * Which output this panel shows; `offset` overrides the offset the webview restored. `sessionId`
   * is this window's session that holds it, which the page keeps in its state so that a restored
   * panel reads the same session whatever session is current then.
   */
  show: { outputId: string; offset?: number; sessionId?: string };
  /** Outputs were retained, removed or evicted, or the session changed: describe again. */
  changed: Record<string, never>;
}

export type RequestMethod = keyof Requests;

export type RequestMessage<M extends RequestMethod = RequestMethod> = {
  [K in M]: { type: 'request'; id: number; method: K; params: Requests[K]['params'] };
}[M];

export type ResponseMessage<M extends RequestMethod = RequestMethod> =
  | { type: 'response'; id: number; method: M; ok: true; result: Requests[M]['result'] }
  | { type: 'response'; id: number; method: M; ok: false; error: ErrorView };

export type NotificationMessage<Map> = {
  [K in keyof Map]: { type: 'notification'; method: K; params: Map[K] };
}[keyof Map];

export type WebviewToHost = RequestMessage | NotificationMessage<WebviewNotifications>;
export type HostToWebview = ResponseMessage | NotificationMessage<HostNotifications>;

// ---------------------------------------------------------------------------------------------
// Localization. The page never fetches anything, so the host hands it the extension's l10n bundle
// (vscode.l10n.bundle: English message → translation; absent in English) inside the page itself,
// as JSON in the `data-bundle` attribute of the element with this id. The page reads it before it
// builds anything and gives it to @vscode/l10n (`l10n.config({ contents })`).

export const L10N_BUNDLE_ELEMENT_ID = 'l10n-bundle';

/** A bundle as @vscode/l10n takes it: message → translation (a translator's comment form also occurs). */
export type L10nBundle = Record<string, string | { message: string; comment: string[] }>;

/** Cheap structural check of a bundle read back from the page (anything else is ignored). */
export function isL10nBundle(value: unknown): value is L10nBundle {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (v) => typeof v === 'string' || (typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string'),
  );
}

/** What the webview persists with setState (and what the panel serializer is handed back). */
export interface PersistedState {
  outputId: string;
  /** This window's session that holds the output (the host named it in `show`). */
  sessionId?: string;
  offset: number;
  pageBytes: number;
  wrap?: boolean;
  search?: { pattern: string; regex: boolean; caseSensitive: boolean };
}

/** Cheap structural check for messages arriving from the other side (never trust the wire). */
export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { type?: unknown; method?: unknown; id?: unknown };
  if (typeof m.method !== 'string') return false;
  return m.type === 'notification' || (m.type === 'request' && typeof m.id === 'number');
}
