/**
 * The "Retained Outputs" tree: the current session's copies, newest first, then a group per session
 * that an MCP server keeps for this workspace (another agent's: Claude Code, Codex, Cursor), whose
 * copies open read-only. Incomplete and evicted copies carry a file-decoration badge (the way the
 * SCM view marks files), besides their icon.
 */
import * as vscode from 'vscode';
import { describeError } from '../../core/errors';
import { outputSizes, sizeExact, sizeText } from '../sizes';
import type { OutputInfo, RecallStore } from '../../core/types';
import type { HookDoorStatus } from '../../core/store/sessionAgent';
import type { InspectorServices } from './services';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import type { AgentSessionNode, AgentSessionSummary, TreeNode } from '../agents/agentSessions';
import { RUNNING_COMMANDS, type RunningCommands } from '../running/runningCommands';
import { runningItem, type RunningNode } from '../running/runningItem';
import { outputLabel } from '../../core/commandLabel';
import { exactTime, relativeTime } from '../times';

/** What the tree holds: outputs, other agents' session groups, and the run_command calls running now (first). */
type OutputsNode = TreeNode | RunningNode;

export interface TreeItemSnapshot {
  id?: string;
  label: string;
  description: string;
  /** The tooltip's text (a MarkdownString's value: its text escaped as markdown). */
  tooltip?: string;
  contextValue?: string;
  children?: TreeItemSnapshot[];
}

/** An output of this window's session, with that session's ID (the inspector reads it whatever is current later). */
type OwnOutput = OutputInfo & { sessionId?: string; agentSession?: string };

/** Tree items get a resourceUri in this scheme only so the decoration provider can badge them. */
const DECORATION_SCHEME = 'tool-output-recall-item';

export class OutputsTree implements vscode.TreeDataProvider<OutputsNode>, vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changeTree = new vscode.EventEmitter<OutputsNode | undefined>();
  private readonly changeDecorations = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeTreeData = this.changeTree.event;
  readonly onDidChangeFileDecorations = this.changeDecorations.event;
  private view: vscode.TreeView<OutputsNode> | undefined;
  private known = new Map<string, OutputInfo>();
  /** Outputs whose label another output of the list shares: which run each is (oldest 1), of how many. */
  private repeats = new Map<string, { n: number; of: number }>();
  /** Other agents' outputs shown so far, by ID (for their badges). */
  private knownAgents = new Map<string, OutputInfo>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The running items shown, by call ID: an update fires for the same element. */
  private runningNodes = new Map<string, RunningNode>();
  /** While a command runs, its item's elapsed time is redrawn every second. */
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly runningSubscription: { dispose(): void };

  constructor(
    private readonly services: InspectorServices,
    private readonly running: RunningCommands = RUNNING_COMMANDS,
  ) {
    // A new or finished call changes the list; bytes so far change one item (reported a few times a second at most).
    this.runningSubscription = running.onDidChange((id) => {
      const node = id === undefined ? undefined : this.runningNodes.get(id);
      if (node) this.changeTree.fire(node);
      else this.refresh();
    });
  }

  attach(view: vscode.TreeView<OutputsNode>): void {
    this.view = view;
  }

  /** Coalesces bursts (a tool that retains several parts) into one refresh. */
  refresh(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changeTree.fire(undefined);
    }, 100);
  }

  /** The selected output (a session group is not one), with this window's session that holds it. */
  selected(): OwnOutput | undefined {
    const node = this.view?.selection[0];
    return node && !isGroup(node) && !isRunning(node) ? node : undefined;
  }

  async getChildren(element?: OutputsNode): Promise<OutputsNode[]> {
    if (element) return isGroup(element) ? this.agentOutputs(element) : [];
    const running = this.runningChildren();
    const groups = await this.agentGroups();
    try {
      const store = await this.services.store();
      const outputs: OwnOutput[] = (await store.list()).map((info) => ({ ...info, sessionId: store.sessionId }));
      this.known = new Map(outputs.map((info) => [info.outputId, info]));
      this.repeats = repeatsOf(outputs);
      this.changeDecorations.fire(undefined);
      if (this.view) {
        this.view.message = undefined;
        this.view.description = await this.describeSession(store, outputs);
      }
      return [...running, ...outputs, ...groups];
    } catch (error) {
      this.services.log.warn(`outputs view: ${describeError(error)}`);
      if (this.view) this.view.message = vscode.l10n.t('Retained outputs cannot be listed: {0}', describeError(error));
      return [...running, ...groups];
    }
  }

  /**
   * The header's description: the current session as a person knows it (when it started, its first
   * command, its outputs and size), so that a switch shows which session the list is.
   */
  private async describeSession(store: RecallStore, outputs: OwnOutput[]): Promise<string | undefined> {
    const named = await this.services.sessions?.currentName(store, outputs).catch((error: unknown) => {
      this.services.log.info(`outputs view: the session cannot be named: ${describeError(error)}`);
      return undefined;
    });
    if (named !== undefined) return named;
    const live = outputs.filter((o) => !o.evicted);
    const size = live.reduce((sum, o) => sum + o.totalBytes, 0);
    return outputs.length === 0 ? undefined : vscode.l10n.t('{count} retained · {size}', { count: live.length, size: sizeText(size) });
  }

  /** A group per session another agent's MCP server keeps for this workspace, after this window's outputs. */
  private async agentGroups(): Promise<AgentSessionNode[]> {
    try {
      return ((await this.services.agents?.list()) ?? []).map((summary) => ({ kind: 'agentSession', summary }));
    } catch (error) {
      this.services.log.warn(`outputs view: other agents' sessions: ${describeError(error)}`);
      return [];
    }
  }

  private async agentOutputs(group: AgentSessionNode): Promise<TreeNode[]> {
    try {
      const outputs = (await this.services.agents?.outputs(group.summary.file)) ?? [];
      for (const info of outputs) this.knownAgents.set(info.outputId, info);
      this.changeDecorations.fire(undefined);
      return outputs.map((info) => ({ ...info, agentSession: group.summary.file }));
    } catch (error) {
      // In the view, not a notification: the tree asks again at every refresh.
      this.services.log.warn(`outputs view: ${group.summary.file}: ${describeError(error)}`);
      if (this.view) this.view.message = vscode.l10n.t("This agent's session cannot be read: {0}", describeError(error));
      return [];
    }
  }

  /** What the tree shows, groups expanded (the `_toolOutputRecall.outputsTreeItems` command, for tests and diagnostics). */
  async snapshot(): Promise<TreeItemSnapshot[]> {
    const describe = async (node: OutputsNode): Promise<TreeItemSnapshot> => {
      const item = this.getTreeItem(node);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const children = isGroup(node) ? await Promise.all((await this.getChildren(node)).map(describe)) : undefined;
      const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
      return {
        id: item.id,
        label,
        description: String(item.description ?? ''),
        ...(tooltip ? { tooltip } : {}),
        contextValue: item.contextValue,
        ...(children ? { children } : {}),
      };
    };
    return Promise.all((await this.getChildren()).map(describe));
  }

  /** TreeView.reveal needs it; only running calls, at the root, are revealed (runningReveal.ts). */
  getParent(): undefined {
    return undefined;
  }

  getTreeItem(node: OutputsNode): vscode.TreeItem {
    if (isGroup(node)) return agentSessionItem(node.summary);
    if (isRunning(node)) return runningItem(node, this.running.get(node.id));
    const info = node;
    const facts = factsOf(info);
    // What tells repeated commands apart is in the label, which the side bar shows whole (it cuts the description).
    const repeat = info.agentSession ? undefined : this.repeats.get(info.outputId);
    const label = repeat
      ? vscode.l10n.t('{command} · run {n} of {count}', { command: labelOf(info, REPEATED_LABEL_CHARS), n: repeat.n, count: repeat.of })
      : labelOf(info);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = info.outputId;
    item.description = [
      relativeTime(info.createdAt),
      facts.status,
      outputSizes(info),
      info.tool === RUN_COMMAND_TOOL ? undefined : info.tool,
    ]
      .filter(Boolean)
      .join(' · ');
    // Another agent's copies are read-only: their own context value, without Delete.
    const kind = info.agentSession ? 'agentOutput' : 'output';
    item.contextValue = info.evicted ? `${kind}-evicted` : kind;
    item.resourceUri = vscode.Uri.from({ scheme: DECORATION_SCHEME, path: `/${info.outputId}` });
    item.iconPath = iconOf(info, facts.failed);
    item.tooltip = tooltipOf(info, facts.status);
    const sessionId = (info as OwnOutput).sessionId;
    item.command = {
      command: 'toolOutputRecall.openOutput',
      title: vscode.l10n.t('Open Output in Inspector'),
      arguments: sessionId ? [info.outputId, { sessionId }] : [info.outputId],
    };
    const state = info.evicted ? vscode.l10n.t('evicted') : !info.complete ? vscode.l10n.t('incomplete copy') : undefined;
    item.accessibilityInformation = { label: [label, item.description, state].filter(Boolean).join(', ') };
    return item;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== DECORATION_SCHEME) return undefined;
    const info = this.known.get(uri.path.slice(1)) ?? this.knownAgents.get(uri.path.slice(1));
    if (!info) return undefined;
    if (info.evicted)
      return new vscode.FileDecoration(
        'EV',
        vscode.l10n.t("Evicted: the copy's content is gone"),
        new vscode.ThemeColor('disabledForeground'),
      );
    if (!info.complete)
      return new vscode.FileDecoration(
        '!',
        vscode.l10n.t('Incomplete copy: {0} bytes were dropped', info.droppedBytes),
        new vscode.ThemeColor('list.warningForeground'),
      );
    return undefined;
  }

  /** The running calls' items (the same element per call), and the ticker while there are any. */
  private runningChildren(): RunningNode[] {
    const calls = this.running.list();
    this.runningNodes = new Map(calls.map((call) => [call.id, this.runningNodes.get(call.id) ?? { kind: 'running', id: call.id }]));
    if (calls.length > 0 && !this.ticker) {
      this.ticker = setInterval(() => {
        // Only calls still running: an ended one leaves the tree at the next refresh.
        for (const node of this.runningNodes.values()) if (this.running.get(node.id)) this.changeTree.fire(node);
      }, 1000);
    } else if (calls.length === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
    return [...this.runningNodes.values()];
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.runningSubscription.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.changeTree.dispose();
    this.changeDecorations.dispose();
  }
}

/** For outputs whose label (their command) another output shares: which run each is, oldest first, of how many. */
function repeatsOf(outputs: readonly OutputInfo[]): Map<string, { n: number; of: number }> {
  const byLabel = new Map<string, OutputInfo[]>();
  for (const info of outputs) {
    const label = labelOf(info);
    byLabel.set(label, [...(byLabel.get(label) ?? []), info]);
  }
  const repeats = new Map<string, { n: number; of: number }>();
  for (const same of byLabel.values()) {
    if (same.length < 2) continue;
    same.sort((a, b) => a.createdAt - b.createdAt || a.outputId.localeCompare(b.outputId));
    same.forEach((info, i) => repeats.set(info.outputId, { n: i + 1, of: same.length }));
  }
  return repeats;
}

const isGroup = (node: OutputsNode): node is AgentSessionNode => (node as AgentSessionNode).kind === 'agentSession';
const isRunning = (node: OutputsNode): node is RunningNode => (node as RunningNode).kind === 'running';

/** A repeated command's label leaves room for which run it is. */
const REPEATED_LABEL_CHARS = 26;

/** The command named briefly (program and key argument; the tooltip shows it whole), or the title or the tool. */
function labelOf(info: OutputInfo, max?: number): string {
  return outputLabel(info.title ?? info.tool ?? info.outputId, info.tool === RUN_COMMAND_TOOL && !!info.title, max) || info.outputId;
}

function factsOf(info: OutputInfo): { status?: string; failed: boolean } {
  const extra = info.extra ?? {};
  if (extra.timedOut === true) return { status: vscode.l10n.t('timed out'), failed: true };
  if (extra.cancelled === true) return { status: vscode.l10n.t('cancelled'), failed: true };
  if (typeof extra.signal === 'string') return { status: extra.signal, failed: true };
  if (typeof extra.exitCode === 'number') return { status: vscode.l10n.t('exit {0}', extra.exitCode), failed: extra.exitCode !== 0 };
  return { failed: false };
}

function iconOf(info: OutputInfo, failed: boolean): vscode.ThemeIcon {
  if (info.evicted) return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
  if (!info.complete) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  if (failed) return new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
  return new vscode.ThemeIcon(info.tool === RUN_COMMAND_TOOL ? 'terminal' : 'output');
}

function tooltipOf(info: OutputInfo, status: string | undefined): vscode.MarkdownString {
  // appendText / appendCodeblock escape everything: a command line cannot inject markdown or links.
  const md = new vscode.MarkdownString();
  md.appendCodeblock((info.title ?? info.tool ?? info.outputId).slice(0, 2000), info.tool === RUN_COMMAND_TOOL ? 'shellscript' : 'text');
  const dropped = info.droppedBytes.toLocaleString('en-US');
  const lines = [
    `${info.tool ?? vscode.l10n.t('unknown tool')} · ${exactTime(info.createdAt)}`,
    `${info.outputId}`,
    (info.droppedBytes > 0
      ? vscode.l10n.t('Output: {output}. Retained copy: {copy}.', {
          output: sizeExact(info.totalBytes + info.droppedBytes),
          copy: sizeExact(info.totalBytes),
        })
      : vscode.l10n.t('Output: {0}, all in the retained copy.', sizeExact(info.totalBytes))) + (status ? ` · ${status}` : ''),
    info.evicted
      ? vscode.l10n.t('Evicted: the copy was removed to keep the session within its quota; its content is gone.')
      : info.complete
        ? vscode.l10n.t('Complete copy: every byte the tool produced.')
        : info.gapOffset !== undefined
          ? vscode.l10n.t('Incomplete copy: {dropped} bytes were dropped at byte {gap}.', {
              dropped,
              gap: info.gapOffset.toLocaleString('en-US'),
            })
          : vscode.l10n.t('Incomplete copy: {0} bytes were dropped.', dropped),
  ];
  md.appendText(lines.join('\n'));
  return md;
}

/** Where the session's server takes outputs from its agent's hooks, or why it cannot (the reason is the server's, in English). */
function hooksLine(hooks: HookDoorStatus): string {
  return hooks.listening
    ? vscode.l10n.t('Hooks: its server listens in {dir} ({how}).', { dir: hooks.dir, how: hooks.how })
    : vscode.l10n.t('Hooks: its server cannot take outputs from hooks: {0}', hooks.why);
}

/** A group for another agent's session: who, when, how much, and whether its server still runs. */
function agentSessionItem(session: AgentSessionSummary): vscode.TreeItem {
  const who = session.agents.length ? session.agents.join(', ') : vscode.l10n.t('MCP server');
  const item = new vscode.TreeItem(who, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `agentSession:${session.file}`;
  const state = session.live ? vscode.l10n.t('live') : vscode.l10n.t('ended');
  const when =
    session.startedAt !== undefined
      ? vscode.l10n.t('started {0}', relativeTime(session.startedAt))
      : vscode.l10n.t('written {0}', relativeTime(session.modifiedAt));
  item.description = [when, sizeText(session.bytes), state].join(' · ');
  item.contextValue = session.live ? 'agentSession-live' : 'agentSession-ended';
  item.iconPath = new vscode.ThemeIcon(
    session.live ? 'broadcast' : 'history',
    session.live ? new vscode.ThemeColor('charts.green') : undefined,
  );
  const md = new vscode.MarkdownString();
  md.appendText(
    [
      vscode.l10n.t("{0}'s session, kept by the Tool Output Recall MCP server for {1}", who, session.folder),
      session.sessionId,
      ...(session.startedAt !== undefined ? [vscode.l10n.t('Started {0}', exactTime(session.startedAt))] : []),
      vscode.l10n.t('Last written {0}', exactTime(session.modifiedAt)),
      sizeExact(session.bytes),
      session.live
        ? vscode.l10n.t('Live: its server is running; new outputs appear here as it retains them.')
        : vscode.l10n.t('Ended: no server holds it any more.'),
      // The door is its running server's: an ended session's record tells of a door long closed.
      ...(session.live && session.hooks ? [hooksLine(session.hooks)] : []),
      vscode.l10n.t('Read-only in VS Code: its outputs open in the inspector, but only its server changes the session.'),
    ].join('\n'),
  );
  item.tooltip = md;
  item.accessibilityInformation = { label: [who, item.description].join(', ') };
  return item;
}
