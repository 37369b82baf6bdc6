/**
 * A running command's output as it arrives, for a person: a read-only document of its own scheme that
 * shows the command, its bytes so far and the last PROGRESS_TAIL_BYTES (never more: the whole output
 * is the retained copy once the command ends), redrawn at most every REDRAW_MS; its editors follow the
 * end (followEnd.ts). A CodeLens on its status line cancels the call while it runs and, once it ended,
 * opens its copy in the inspector (a plain document's text cannot hold a link that runs a command).
 * Also the commands the tree's running items use: show that document, and Cancel (stops the call's
 * whole process tree; the tool then returns its usual result for a cancelled command).
 */
import * as vscode from 'vscode';
import { PROGRESS_TAIL_BYTES } from '../../core/capture/progress';
import { RUNNING_COMMANDS, type RunningCommand, type RunningCommands } from './runningCommands';
import { CANCEL_RUNNING_COMMAND, SHOW_RUNNING_COMMAND, commandLabel, formatElapsed } from './runningItem';
import { EndFollower } from './followEnd';

export const RUNNING_SCHEME = 'tool-output-recall-running';

/** How often an open document is redrawn at most (bytes arrive a few times a second; the elapsed time each second). */
const REDRAW_MS = 500;

/**
 * A document is redrawn again only once its last redraw is in (or after this long: a text that did not
 * change makes no event). VS Code drops an update that a newer one overtakes before its text is
 * applied, so on a busy machine redraws every REDRAW_MS could leave the document never updated.
 */
const IN_FLIGHT_MS = 2000;

/** The document of a running call: `tool-output-recall-running:/<n>/<command>.log`. */
export function runningUri(call: Pick<RunningCommand, 'id' | 'command'>): vscode.Uri {
  const name = commandLabel(call.command)
    .replace(/[\\/:*?"<>|\s]+/g, ' ')
    .trim()
    .slice(0, 40);
  return vscode.Uri.from({ scheme: RUNNING_SCHEME, path: `/${call.id.replace('running:', '')}/${name || 'command'}.log` });
}

const idOfUri = (uri: vscode.Uri): string => `running:${uri.path.split('/')[1]}`;

class RunningDocuments implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /**
   * Each open document's call, the registry's own entry: after the call ended it keeps its last counts
   * (the capture's final report, the copy's size) and how it ended.
   */
  private readonly lastSeen = new Map<string, RunningCommand>();
  private readonly follower = new EndFollower(RUNNING_SCHEME);

  /** Shows an editor of a running call's document from its newest lines on (later redraws keep it there). */
  follow(editor: vscode.TextEditor): void {
    this.follower.follow(editor);
  }
  private readonly pending = new Set<string>();
  /** By document URI, when its redraw was asked for, until its new text is in. */
  private readonly inFlight = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly subscriptions: { dispose(): void }[];

  constructor(private readonly running: RunningCommands) {
    this.subscriptions = [
      running.onDidChange((id) => (id ? this.redraw([id]) : this.redraw([...this.lastSeen.keys()]))),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme !== RUNNING_SCHEME) return;
        this.lastSeen.delete(idOfUri(doc.uri));
        this.inFlight.delete(doc.uri.toString());
      }),
      vscode.workspace.onDidChangeTextDocument(({ document }) => {
        if (document.uri.scheme === RUNNING_SCHEME) this.inFlight.delete(document.uri.toString());
      }),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = idOfUri(uri);
    const call = this.running.get(id);
    if (call) this.lastSeen.set(id, call);
    const shown = call ?? this.lastSeen.get(id);
    this.tick();
    if (!shown)
      return vscode.l10n.t('This command is no longer running. Its output, if it was retained, is in the Retained Outputs view.') + '\n';
    return renderRunning(shown);
  }

  /** On the status line (the last): Cancel while the call runs, Open Output in Inspector once it ended with a copy. */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const call = this.lastSeen.get(idOfUri(document.uri));
    if (!call) return [];
    const line = document.lineAt(document.lineCount - 1).range;
    if (call.ended?.outputId)
      return [
        new vscode.CodeLens(line, {
          title: `$(inspect) ${vscode.l10n.t('Open Output in Inspector')}`,
          command: 'toolOutputRecall.openOutput',
          arguments: [call.ended.outputId],
        }),
      ];
    if (call.ended || call.cancelling) return [];
    return [
      new vscode.CodeLens(line, {
        title: `$(debug-stop) ${vscode.l10n.t('Cancel')}`,
        command: CANCEL_RUNNING_COMMAND,
        arguments: [{ kind: 'running', id: call.id }],
      }),
    ];
  }

  /** Redraws the open documents of these calls, at most every REDRAW_MS. */
  private redraw(ids: string[]): void {
    for (const id of ids) if (this.lastSeen.has(id)) this.pending.add(id);
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const open = new Map(
        vscode.workspace.textDocuments.filter((d) => d.uri.scheme === RUNNING_SCHEME).map((d) => [idOfUri(d.uri), d.uri] as const),
      );
      const now = Date.now();
      for (const id of [...this.pending]) {
        const uri = open.get(id);
        const asked = uri && this.inFlight.get(uri.toString());
        if (asked && now - asked < IN_FLIGHT_MS) continue;
        this.pending.delete(id);
        if (!uri) continue;
        this.inFlight.set(uri.toString(), now);
        this.changed.fire(uri);
      }
      // What waits for its last redraw is tried again.
      this.redraw([]);
    }, REDRAW_MS);
  }

  /** While a shown call runs, its elapsed time is redrawn every second. */
  private tick(): void {
    const live = [...this.lastSeen.keys()].some((id) => this.running.get(id));
    if (live && !this.ticker) this.ticker = setInterval(() => this.redraw([...this.lastSeen.keys()]), 1000);
    else if (!live && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    for (const s of this.subscriptions) s.dispose();
    this.follower.dispose();
    this.changed.dispose();
  }
}

/**
 * The document's text: the command, the last bytes so far (from the start of a line when one is near)
 * and, last, the status line, where an editor that follows the end looks and the CodeLens sits. What
 * comes before the status line stays put while bytes arrive, so VS Code's update of the document is
 * an append: it diffs a content provider's text below 100,000 characters, and a line that changes at
 * the top made every redraw a diff of the whole text.
 */
export function renderRunning(call: RunningCommand, now = Date.now()): string {
  const cut = call.totalBytes > call.tail.length;
  const tail = tailText(call.tail, cut);
  return [
    `$ ${call.command.split('\n')[0]}\n`,
    cut
      ? vscode.l10n.t('--- the last {0} bytes (updated as they arrive) ---', call.tail.length.toLocaleString('en-US'))
      : vscode.l10n.t('--- the output so far ---'),
    '\n',
    tail,
    tail === '' || tail.endsWith('\n') ? '' : '\n',
    statusLine(call, now),
  ].join('');
}

/** How long it has run and its bytes so far, or how it ended. */
function statusLine(call: RunningCommand, now: number): string {
  if (call.ended) return endedLine(call, call.ended);
  if (call.cancelling)
    return vscode.l10n.t('Stopping (Cancel was asked for): {size} bytes so far.', { size: call.totalBytes.toLocaleString('en-US') });
  return vscode.l10n.t('Running for {elapsed}: {size} bytes so far (stdout {stdout}, stderr {stderr}).', {
    elapsed: formatElapsed(now - call.startedAt),
    size: call.totalBytes.toLocaleString('en-US'),
    stdout: call.stdoutBytes.toLocaleString('en-US'),
    stderr: call.stderrBytes.toLocaleString('en-US'),
  });
}

/** How the call ended, with the count of its copy (the capture's final report: what the store holds and the tree shows). */
function endedLine(call: RunningCommand, ended: NonNullable<RunningCommand['ended']>): string {
  const facts = {
    elapsed: formatElapsed(ended.at - call.startedAt),
    size: call.totalBytes.toLocaleString('en-US'),
    outputId: ended.outputId ?? '',
  };
  if (ended.outputId)
    return ended.cancelled
      ? vscode.l10n.t('Cancelled after {elapsed}: {size} bytes, retained as {outputId} (flagged cancelled).', facts)
      : vscode.l10n.t('Ended after {elapsed}: {size} bytes, retained as {outputId}.', facts);
  return ended.cancelled
    ? vscode.l10n.t('Cancelled after {elapsed}: {size} bytes. No copy could be retained.', facts)
    : vscode.l10n.t(
        'Ended after {elapsed}: {size} bytes. No copy was retained: the result held the whole output, or the store was not available.',
        facts,
      );
}

/** The tail as text: when it was cut, from its first whole line (if one starts in its first quarter), never from inside a character. */
function tailText(tail: Buffer, cut: boolean): string {
  let start = 0;
  if (cut) {
    const newline = tail.indexOf(0x0a);
    if (newline >= 0 && newline < PROGRESS_TAIL_BYTES / 4) start = newline + 1;
    else while (start < tail.length && start < 3 && (tail[start] & 0xc0) === 0x80) start++;
  }
  return tail.subarray(start).toString('utf8');
}

/** The running call a command is about: a tree node or an ID; else the only one running, or one the person picks. */
async function chooseCall(running: RunningCommands, arg: unknown, placeHolder: string): Promise<RunningCommand | undefined> {
  const id = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null ? (arg as { id?: unknown }).id : undefined;
  if (typeof id === 'string') {
    const call = running.get(id);
    if (!call) void vscode.window.showInformationMessage(vscode.l10n.t('That command is no longer running.'));
    return call;
  }
  const calls = running.list();
  if (calls.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No command is running.'));
    return undefined;
  }
  if (calls.length === 1) return calls[0];
  const picked = await vscode.window.showQuickPick(
    calls.map((call) => ({ label: commandLabel(call.command), description: formatElapsed(Date.now() - call.startedAt), call })),
    { placeHolder },
  );
  return picked?.call;
}

/** Registers the running commands' document scheme and commands; everything goes to context.subscriptions. */
export function registerRunningCommands(context: vscode.ExtensionContext, running: RunningCommands = RUNNING_COMMANDS): void {
  const documents = new RunningDocuments(running);
  context.subscriptions.push(
    documents,
    vscode.workspace.registerTextDocumentContentProvider(RUNNING_SCHEME, documents),
    vscode.languages.registerCodeLensProvider({ scheme: RUNNING_SCHEME }, documents),
    vscode.commands.registerCommand(SHOW_RUNNING_COMMAND, async (arg: unknown) => {
      const call = await chooseCall(running, arg, vscode.l10n.t('Which running command to show?'));
      if (!call) return undefined;
      const uri = runningUri(call);
      const doc = await vscode.workspace.openTextDocument(uri);
      // From the newest lines on, like a terminal: later redraws keep it there (EndFollower).
      documents.follow(await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true }));
      return uri.toString();
    }),
    vscode.commands.registerCommand(CANCEL_RUNNING_COMMAND, async (arg: unknown) => {
      const call = await chooseCall(running, arg, vscode.l10n.t('Which running command to stop?'));
      return call ? running.cancel(call.id) : false;
    }),
    // For the real-host test and diagnostics: the running calls as the extension knows them.
    vscode.commands.registerCommand('_toolOutputRecall.runningCommands', () =>
      running.list().map((call) => ({
        id: call.id,
        command: call.command,
        totalBytes: call.totalBytes,
        tailBytes: call.tail.length,
        elapsedMs: Date.now() - call.startedAt,
        cancelling: call.cancelling,
        uri: runningUri(call).toString(),
      })),
    ),
  );
}
