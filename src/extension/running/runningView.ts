/**
 * A running command's output as it arrives, for a person: a read-only document of its own scheme that
 * shows the command, its bytes so far and the last PROGRESS_TAIL_BYTES (never more: the whole output
 * is the retained copy once the command ends), redrawn at most every REDRAW_MS. Also the commands the
 * tree's running items use: show that document, and Cancel (stops the call's whole process tree; the
 * tool then returns its usual result for a cancelled command).
 */
import * as vscode from 'vscode';
import { PROGRESS_TAIL_BYTES } from '../../core/capture/progress';
import { RUNNING_COMMANDS, type RunningCommand, type RunningCommands } from './runningCommands';
import { CANCEL_RUNNING_COMMAND, SHOW_RUNNING_COMMAND, commandLabel, formatElapsed } from './runningItem';

export const RUNNING_SCHEME = 'tool-output-recall-running';

/** How often an open document is redrawn at most (bytes arrive a few times a second; the elapsed time each second). */
const REDRAW_MS = 500;

/** The document of a running call: `tool-output-recall-running:/<n>/<command>.log`. */
export function runningUri(call: Pick<RunningCommand, 'id' | 'command'>): vscode.Uri {
  const name = commandLabel(call.command)
    .replace(/[\\/:*?"<>|\s]+/g, ' ')
    .trim()
    .slice(0, 40);
  return vscode.Uri.from({ scheme: RUNNING_SCHEME, path: `/${call.id.replace('running:', '')}/${name || 'command'}.log` });
}

const idOfUri = (uri: vscode.Uri): string => `running:${uri.path.split('/')[1]}`;

class RunningDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** The last state of each open document's call, so it still reads after the call ended. */
  private readonly lastSeen = new Map<string, RunningCommand>();
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly subscriptions: { dispose(): void }[];

  constructor(private readonly running: RunningCommands) {
    this.subscriptions = [
      running.onDidChange((id) => (id ? this.redraw([id]) : this.redraw([...this.lastSeen.keys()]))),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === RUNNING_SCHEME) this.lastSeen.delete(idOfUri(doc.uri));
      }),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = idOfUri(uri);
    const call = this.running.get(id);
    if (call) this.lastSeen.set(id, { ...call });
    const shown = call ?? this.lastSeen.get(id);
    this.tick();
    if (!shown)
      return vscode.l10n.t('This command is no longer running. Its output, if it was retained, is in the Retained Outputs view.') + '\n';
    return renderRunning(shown, call === undefined);
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
      for (const id of this.pending) {
        const uri = open.get(id);
        if (uri) this.changed.fire(uri);
      }
      this.pending.clear();
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
    this.changed.dispose();
  }
}

/** The document's text: a header, then the last bytes so far (from the start of a line when one is near). */
export function renderRunning(call: RunningCommand, ended: boolean, now = Date.now()): string {
  const header = [
    `$ ${call.command.split('\n')[0]}`,
    ended
      ? vscode.l10n.t('Ended after {elapsed}: {size} bytes. Its output is in the Retained Outputs view (the whole copy, as usual).', {
          elapsed: formatElapsed(now - call.startedAt),
          size: call.totalBytes.toLocaleString('en-US'),
        })
      : call.cancelling
        ? vscode.l10n.t('Stopping (Cancel was asked for): {size} bytes so far.', { size: call.totalBytes.toLocaleString('en-US') })
        : vscode.l10n.t('Running for {elapsed}: {size} bytes so far (stdout {stdout}, stderr {stderr}).', {
            elapsed: formatElapsed(now - call.startedAt),
            size: call.totalBytes.toLocaleString('en-US'),
            stdout: call.stdoutBytes.toLocaleString('en-US'),
            stderr: call.stderrBytes.toLocaleString('en-US'),
          }),
  ];
  const cut = call.totalBytes > call.tail.length;
  header.push(
    cut
      ? vscode.l10n.t('--- the last {0} bytes (updated as they arrive) ---', call.tail.length.toLocaleString('en-US'))
      : vscode.l10n.t('--- the output so far ---'),
  );
  return `${header.join('\n')}\n${tailText(call.tail, cut)}`;
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
    vscode.commands.registerCommand(SHOW_RUNNING_COMMAND, async (arg: unknown) => {
      const call = await chooseCall(running, arg, vscode.l10n.t('Which running command to show?'));
      if (!call) return undefined;
      const uri = runningUri(call);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
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
