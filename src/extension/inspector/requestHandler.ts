/**
 * The host side of the inspector protocol, free of VS Code: it answers the webview's requests by
 * calling the session store, and speaks the handshake. `InspectorPanel` plugs it into a real
 * WebviewPanel; the browser tests plug the very same class into a test page, so they exercise the
 * real handler against the real engine.
 */
import * as l10n from '@vscode/l10n';
import { RecallError, describeError, isRecallError } from '../../core/errors';
import type { OutputInfo, ReadResult, RecallStore } from '../../core/types';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import {
  MAX_PAGE_BYTES,
  PROTOCOL_VERSION,
  isWebviewToHost,
  type ActionParams,
  type DescribeResult,
  type ErrorView,
  type HostToWebview,
  type NotableMarks,
  type PageBeforeParams,
  type PageParams,
  type PageResult,
  type PreviewView,
  type RequestMessage,
  type RequestMethod,
  type Requests,
  type SearchParams,
  type SearchResultView,
  type SessionOrigin,
} from '../../../webview/protocol';
import { countChar, lineAt, lineIndexOf, PromiseCache, type LineIndex } from './copyLineIndex';
import { commandFacts, previewView } from './outputFacts';
import { sessionStats } from '../sessions/sessionStats';
import { logText, personMessage, type ErrorContext } from '../personMessages';

/** What only the editor can do; the panel implements these with VS Code APIs, tests with doubles. */
export interface InspectorActions {
  copyText(text: string, what: string): Promise<void>;
  openInEditor(outputId: string, line?: number): Promise<void>;
  /** Resolves false when the user cancelled. */
  saveAs(outputId: string): Promise<boolean>;
}

export interface InspectorHost {
  store(): Promise<RecallStore>;
  /**
   * This window's session that holds the output, when known: the page keeps it (see `show`), and
   * `origin` names it. Absent for another agent's session and in hosts without sessions.
   */
  sessionId?: string;
  /** The output's session by name, and whether it is current (an earlier one is read-only). */
  origin?(): Promise<SessionOrigin | undefined>;
  /** Makes the output's session current again; resolves false when there is nothing to switch to. */
  switchSession?(): Promise<boolean>;
  post(message: HostToWebview): void;
  /** The preview budget in force, used only to rebuild a preview that was not recorded. */
  previewBytes(): number;
  actions: InspectorActions;
  log?(level: 'info' | 'warn' | 'error', message: string): void;
}

/** Computed once per opened output and shared by every panel and request. */
interface Analysis {
  index: LineIndex;
  preview?: PreviewView;
}

const SEARCH_MAX_MATCHES = 500;
const analyses = new PromiseCache<Analysis>(8);
const notables = new PromiseCache<NotableMarks>(8);

export class InspectorSession {
  private ready = false;
  private pendingOffset: number | undefined;

  constructor(
    private readonly host: InspectorHost,
    readonly outputId: string,
    initialOffset?: number,
  ) {
    this.pendingOffset = initialOffset;
  }

  /** Shows a new offset (e.g. `openOutput` called again for this output with an offset). */
  reveal(offset?: number): void {
    if (this.ready) this.host.post({ type: 'notification', method: 'show', params: this.showParams(offset) });
    else this.pendingOffset = offset ?? this.pendingOffset;
  }

  private showParams(offset: number | undefined): { outputId: string; offset?: number; sessionId?: string } {
    const { sessionId } = this.host;
    return { outputId: this.outputId, offset, ...(sessionId ? { sessionId } : {}) };
  }

  /** Tells the webview to describe the output again (retained/removed/evicted, session switched). */
  changed(): void {
    if (this.ready) this.host.post({ type: 'notification', method: 'changed', params: {} });
  }

  /** Handles one message from the webview; never throws (a bad message is logged and dropped). */
  async handle(message: unknown): Promise<void> {
    if (!isWebviewToHost(message)) {
      this.host.log?.('warn', `inspector: ignored a malformed message ${describeJson(message)}`);
      return;
    }
    if (message.type === 'notification') {
      if (message.method === 'ready') {
        if (message.params?.protocolVersion !== PROTOCOL_VERSION) {
          this.host.log?.('warn', `inspector: webview speaks protocol ${message.params?.protocolVersion}, host ${PROTOCOL_VERSION}`);
        }
        this.ready = true;
        const offset = this.pendingOffset;
        this.pendingOffset = undefined;
        this.host.post({ type: 'notification', method: 'show', params: this.showParams(offset) });
      }
      return;
    }
    await this.answer(message);
  }

  private async answer(request: RequestMessage): Promise<void> {
    const { id, method } = request;
    try {
      const params = request.params as { outputId?: unknown };
      if (params?.outputId !== this.outputId) {
        throw new RecallError(
          'INVALID_ARGUMENT',
          `This inspector shows ${this.outputId}; it does not answer for ${String(params?.outputId)}.`,
        );
      }
      const result = await this.dispatch(request);
      this.host.post({ type: 'response', id, method, ok: true, result });
    } catch (error) {
      // A tab closed (or the side view hidden) while its answer was being made: nobody to answer, and
      // nothing failed.
      if (isDisposedWebview(error)) {
        this.host.log?.('info', `inspector ${method} ${this.outputId}: the page closed before its answer`);
        return;
      }
      // The page shows a person's message; the engine's own text (written for a model) goes to the log.
      if (!isRecallError(error)) this.host.log?.('error', `inspector ${method} failed: ${describeError(error)}`);
      else this.host.log?.('info', `inspector ${method} ${this.outputId}: ${logText(error)}`);
      try {
        this.host.post({ type: 'response', id, method, ok: false, error: toErrorView(error, errorContext(this.outputId, request)) });
      } catch (postError) {
        if (!isDisposedWebview(postError)) throw postError;
      }
    }
  }

  private dispatch(request: RequestMessage): Promise<Requests[RequestMethod]['result']> {
    switch (request.method) {
      case 'describe':
        return this.describe();
      case 'page':
        return this.page(request.params);
      case 'pageBefore':
        return this.pageBefore(request.params);
      case 'search':
        return this.search(request.params);
      case 'notable':
        return this.notable();
      case 'action':
        return this.action(request.params);
      default:
        throw new RecallError('INVALID_ARGUMENT', `Unknown inspector request "${(request as { method: string }).method}".`);
    }
  }

  /**
   * The line index, from the copy's line facts (the store's, never counted here); `info` saves a
   * lookup when the caller has it. Only a run_command copy whose preview must be rebuilt is read whole.
   */
  private analysis(store: RecallStore, known?: OutputInfo): Promise<Analysis> {
    return analyses.get(`${store.sessionId}:${this.outputId}`, async () => {
      const info = known ?? (await store.info(this.outputId));
      const index = lineIndexOf(await store.lineFacts(info.outputId));
      if (typeof info.extra?.preview === 'string' || info.tool !== RUN_COMMAND_TOOL) return { index };
      const bytes = await store.readAll(info.outputId);
      return { index, preview: previewView({ info, bytes, budgetBytes: this.host.previewBytes() }) };
    });
  }

  async describe(): Promise<DescribeResult> {
    const store = await this.host.store();
    const info = await store.info(this.outputId); // NOT_FOUND propagates: the webview shows it
    const { extra, ...plain } = info; // extra can hold a 24 KiB preview: sent once, as `preview`
    const result: DescribeResult = {
      info: plain,
      command: commandFacts(info),
      preview: previewView({ info, budgetBytes: this.host.previewBytes() }),
      // Without it the output is still worth showing.
      session: await sessionStats(store).catch(() => undefined),
    };
    const origin = await this.host.origin?.().catch((error: unknown) => {
      this.host.log?.('info', `inspector describe ${this.outputId}: its session cannot be named: ${logText(error)}`);
      return undefined;
    });
    if (origin) result.origin = origin;
    if (info.evicted) {
      result.unreadable = await store.read(this.outputId, 0, 1).then(
        () => undefined,
        (error: unknown) => this.unreadable(error),
      );
      return result;
    }
    try {
      const analysis = await this.analysis(store, info);
      result.totalLines = analysis.index.totalLines;
      // A rebuilt preview cached before the exact one was recorded does not replace it.
      if (analysis.preview && result.preview.source !== 'recorded') result.preview = analysis.preview;
    } catch (error) {
      result.unreadable = this.unreadable(error);
    }
    return result;
  }

  /** Why the copy cannot be read, for the page; the engine's words go to the log. */
  private unreadable(error: unknown): ErrorView {
    this.host.log?.(isRecallError(error) ? 'info' : 'error', `inspector describe ${this.outputId}: ${logText(error)}`);
    return toErrorView(error, { outputId: this.outputId });
  }

  async page({ offset, maxBytes, snap }: PageParams): Promise<PageResult> {
    const size = pageSize(maxBytes);
    if (!isOffset(offset))
      throw new RecallError('INVALID_ARGUMENT', `The offset must be a whole number of bytes from 0; got ${JSON.stringify(offset)}.`);
    const store = await this.host.store();
    const { index } = await this.analysis(store);
    let start = offset;
    if (snap !== 'exact') start = Math.min(offset, Math.max(0, index.totalBytes - 1));
    const firstLine = this.lineBeside(store, index, start);
    // A line starts at `start` when the byte before it is a newline (a read there fails mid-character: not one).
    const lineStart = snap === 'line' && start > 0 ? this.startsLine(store, start) : Promise.resolve(true);
    let read: ReadResult;
    try {
      read = await store.read(this.outputId, start, size);
    } catch (error) {
      // The slider lands anywhere; move back to the start of the character it hit.
      if (snap === 'exact' || !isRecallError(error, 'MID_CHARACTER_OFFSET')) throw error;
      start = Number(error.details.before);
      read = await store.read(this.outputId, start, size);
    }
    if (snap === 'line' && !(await lineStart)) {
      // Mid-line: start at the next line when one starts within the page (else the page stays here).
      const newline = read.text.indexOf('\n');
      const next = newline < 0 ? -1 : start + Buffer.byteLength(read.text.slice(0, newline + 1));
      if (next > start && next < read.totalBytes) {
        const line = await firstLine;
        return withLines(line + 1, offset, next, await store.read(this.outputId, next, size));
      }
    }
    return withLines(await firstLine, offset, start, read);
  }

  async pageBefore({ end, maxBytes }: PageBeforeParams): Promise<PageResult> {
    const size = pageSize(maxBytes);
    if (!isOffset(end))
      throw new RecallError('INVALID_ARGUMENT', `The end offset must be a whole number of bytes from 0; got ${JSON.stringify(end)}.`);
    const store = await this.host.store();
    const { index } = await this.analysis(store);
    const stop = Math.min(end, index.totalBytes);
    if (stop === 0) return this.page({ outputId: this.outputId, offset: 0, maxBytes: size, snap: 'exact' });
    let start = Math.max(0, stop - size);
    const firstLine = this.lineBeside(store, index, start);
    let read: ReadResult;
    try {
      read = await store.read(this.outputId, start, stop - start);
    } catch (error) {
      // Start at the next boundary so the page still ends exactly where the current one begins.
      if (!isRecallError(error, 'MID_CHARACTER_OFFSET')) throw error;
      start = Number(error.details.after);
      read = await store.read(this.outputId, start, Math.max(1, stop - start));
    }
    return withLines(await firstLine, stop - size, start, read);
  }

  /** Whether the byte before `offset` is a newline. */
  private async startsLine(store: RecallStore, offset: number): Promise<boolean> {
    try {
      return (await store.read(this.outputId, offset - 1, 4)).text.startsWith('\n');
    } catch {
      return false; // mid-character: the byte before is part of a character, not a newline
    }
  }

  /**
   * The line at `start`, looked up beside the page's read (its own short read: both go to the
   * store's worker together, one round trip instead of two). Still right when the read then moves
   * `start` to a boundary of the character it hit: a character's bytes hold no newline.
   */
  private lineBeside(store: RecallStore, index: LineIndex, start: number): Promise<number> {
    const line = lineAt(index, store, this.outputId, start);
    line.catch(() => undefined); // awaited once the page is read: when the read fails, its error is the one reported
    return line;
  }

  async search({ pattern, regex, caseSensitive }: SearchParams): Promise<SearchResultView> {
    const store = await this.host.store();
    const found = await store.search(this.outputId, pattern, {
      regex: regex === true,
      caseSensitive: caseSensitive === true,
      maxMatches: SEARCH_MAX_MATCHES,
    });
    return { matches: found.matches, truncated: found.truncated };
  }

  /** Found once per copy where the store runs (a whole-copy scan), and shared by every panel. */
  async notable(): Promise<NotableMarks> {
    const store = await this.host.store();
    return notables.get(`${store.sessionId}:${this.outputId}`, () => store.notableMarks(this.outputId));
  }

  async action({ action, offset, end, line }: ActionParams): Promise<{ done: boolean; message?: string }> {
    const { actions } = this.host;
    switch (action) {
      case 'copyOutputId':
        await actions.copyText(this.outputId, l10n.t('Output ID'));
        return { done: true, message: l10n.t('Output ID copied.') };
      case 'copyPage': {
        if (!isOffset(offset) || !isOffset(end) || end < offset)
          throw new RecallError('INVALID_ARGUMENT', "copyPage needs the page's offset and end.");
        // Re-read rather than trust text sent back by the page: the clipboard gets the copy's bytes.
        const store = await this.host.store();
        const text = end === offset ? '' : (await store.read(this.outputId, offset, Math.min(MAX_PAGE_BYTES, end - offset))).text;
        await actions.copyText(text, l10n.t('Page'));
        return { done: true, message: l10n.t('Copied bytes {0}–{1}.', offset, end) };
      }
      case 'openInEditor':
        await actions.openInEditor(this.outputId, typeof line === 'number' && line >= 1 ? Math.floor(line) : undefined);
        return { done: true };
      case 'saveAs':
        return { done: await actions.saveAs(this.outputId) };
      case 'switchSession': {
        const switched = (await this.host.switchSession?.()) ?? false;
        return { done: switched, message: switched ? l10n.t('Its session is the current one again.') : undefined };
      }
      default:
        throw new RecallError('INVALID_ARGUMENT', `Unknown action "${String(action)}".`);
    }
  }
}

function withLines(firstLine: number, requested: number, start: number, read: ReadResult): PageResult {
  // A page that ends with a newline ends on that line, not on the next (empty) one.
  const body = read.text.endsWith('\n') ? read.text.slice(0, -1) : read.text;
  const lastLine = firstLine + countChar(body, '\n');
  return {
    offset: start,
    requestedOffset: Math.max(0, requested),
    text: read.text,
    nextOffset: read.nextOffset,
    totalBytes: read.totalBytes,
    hasMore: read.hasMore,
    complete: read.complete,
    firstLine,
    lastLine,
  };
}

function pageSize(maxBytes: unknown): number {
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_PAGE_BYTES) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The page size must be a whole number of bytes from 1 to ${MAX_PAGE_BYTES}; got ${JSON.stringify(maxBytes)}.`,
    );
  }
  return maxBytes;
}

const isOffset = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * A failed request as the page gets it: the engine's code and details (the page acts on them: the
 * boundaries of a mid-character offset) and a message written for a person (personMessages.ts), not
 * the engine's, which is written for a model.
 */
export function toErrorView(error: unknown, context: ErrorContext = {}): ErrorView {
  if (isRecallError(error, 'NOT_FOUND') && typeof error.details.sessionDeleted === 'string') {
    const name = typeof error.details.sessionName === 'string' ? error.details.sessionName : error.details.sessionDeleted;
    return { code: error.code, message: sessionDeletedText(name), details: error.details };
  }
  const { code, text } = personMessage(error, context);
  return isRecallError(error) ? { code, message: text, details: error.details } : { code, message: text };
}

/** What the page (or the side view) says of an output whose session was deleted: what happened and what to do. */
export function sessionDeletedText(name: string): string {
  return l10n.t(
    'This output belonged to the session {0}, which was deleted: its outputs are gone with it. If you need this output, run the command again; the current session is in Retained Outputs.',
    name,
  );
}

/** What the request was about, for its error's message. */
function errorContext(outputId: string, request: RequestMessage): ErrorContext {
  switch (request.method) {
    case 'page':
      return { outputId, offset: request.params.offset };
    case 'search':
      return { outputId, search: { regex: request.params.regex === true } };
    default:
      return { outputId };
  }
}

function describeJson(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 200);
  } catch {
    return String(value);
  }
}

/** VS Code's error for a message posted to a webview that was closed meanwhile. */
const isDisposedWebview = (error: unknown): boolean => error instanceof Error && error.message === 'Webview is disposed';
