/**
 * The "Search Results" tree of Search All Outputs, as VS Code's Search view shows files: an output
 * per group (its command, the session or agent it belongs to when it is not this window's current
 * session, its hit count, how long ago it ran) and its hits under it (line number and line, the
 * match highlighted), newest output first. A hit opens the inspector at its byte. Rows without
 * children say what the search could not tell (nothing matched, incomplete copies, sessions that
 * could not be read, an error). It only shows what searchAllOutputs.ts gives it.
 */
import * as vscode from 'vscode';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import type { ListedOutput, OutputHits, SearchMatch } from '../../core/types';
import { hitLabel, relativeTime, type HitQuery } from './searchHitLabel';
import { exactTime } from '../times';

/** Whose an output is, when it is not this window's current session's. */
export interface OutputOrigin {
  /** Short, in the group's description: "Claude Code", "earlier session". */
  who: string;
  /** A line of the tooltip naming the session. */
  detail: string;
}

export interface OutputNode {
  kind: 'output';
  key: string;
  outputId: string;
  /** This window's session that holds it (current or earlier): the inspector reads that one. Undefined for an agent's. */
  sessionId?: string;
  hits: OutputHits;
  origin?: OutputOrigin;
}

interface HitNode {
  kind: 'hit';
  parent: OutputNode;
  match: SearchMatch;
}

interface MoreNode {
  kind: 'more';
  parent: OutputNode;
}

export interface MessageNode {
  kind: 'message';
  id: string;
  text: string;
  tooltip?: string;
  severity: 'info' | 'warning' | 'error';
}

type ResultNode = OutputNode | HitNode | MoreNode | MessageNode;

/** One row as the `_toolOutputRecall.searchResultsItems` command reports it (tests, diagnostics). */
export interface ResultItemSnapshot {
  id?: string;
  label: string;
  description: string;
  contextValue?: string;
  tooltip?: string;
  highlights?: [number, number][];
  command?: { command: string; arguments: unknown[] };
  children?: ResultItemSnapshot[];
}

const OPEN_OUTPUT = 'toolOutputRecall.openOutput';

export class SearchResultsTree implements vscode.TreeDataProvider<ResultNode>, vscode.Disposable {
  private readonly changeTree = new vscode.EventEmitter<ResultNode | undefined>();
  readonly onDidChangeTreeData = this.changeTree.event;
  private outputs: OutputNode[] = [];
  private messages: MessageNode[] = [];
  private query: HitQuery | undefined;

  /** Empties the tree for a new search. */
  reset(query: HitQuery): void {
    this.query = query;
    this.outputs = [];
    this.messages = [];
    this.changeTree.fire(undefined);
  }

  /** The next page's outputs, after those shown (the pages come newest output first). */
  add(outputs: OutputNode[]): void {
    if (outputs.length === 0) return;
    this.outputs.push(...outputs);
    this.changeTree.fire(undefined);
  }

  /** The rows after the outputs: what the search could not tell. */
  setMessages(messages: MessageNode[]): void {
    this.messages = messages;
    this.changeTree.fire(undefined);
  }

  get outputCount(): number {
    return this.outputs.length;
  }

  getChildren(node?: ResultNode): ResultNode[] {
    if (!node) return [...this.outputs, ...this.messages];
    if (node.kind !== 'output') return [];
    const hits: ResultNode[] = node.hits.matches.map((match) => ({ kind: 'hit', parent: node, match }));
    return node.hits.truncated ? [...hits, { kind: 'more', parent: node }] : hits;
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    switch (node.kind) {
      case 'output':
        return outputItem(node);
      case 'hit':
        return this.hitItem(node);
      case 'more': {
        const item = new vscode.TreeItem(vscode.l10n.t('More matches in this output: open it and search it there'));
        item.id = `${node.parent.key}:more`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.contextValue = 'searchMore';
        item.command = openCommand(node.parent);
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text);
        item.id = node.id;
        item.tooltip = node.tooltip ?? node.text;
        item.contextValue = 'searchMessage';
        item.iconPath = new vscode.ThemeIcon(
          node.severity,
          node.severity === 'info'
            ? undefined
            : new vscode.ThemeColor(node.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground'),
        );
        return item;
      }
    }
  }

  private hitItem(node: HitNode): vscode.TreeItem {
    const { match } = node;
    const shown = hitLabel(match, this.query ?? { pattern: '', regex: false, caseSensitive: false });
    const lead = `${match.line}: `;
    const label: vscode.TreeItemLabel = { label: `${lead}${shown.text}` };
    if (shown.highlight) label.highlights = [[lead.length + shown.highlight[0], lead.length + shown.highlight[1]]];
    const item = new vscode.TreeItem(label);
    item.id = `${node.parent.key}:${match.offset}`;
    item.contextValue = 'searchHit';
    item.tooltip = vscode.l10n.t('Line {line}, byte {offset}: click to open the inspector there.', {
      line: match.line.toLocaleString(vscode.env.language),
      offset: match.offset.toLocaleString(vscode.env.language),
    });
    item.command = openCommand(node.parent, match.offset);
    item.accessibilityInformation = { label: vscode.l10n.t('Line {line}: {text}', { line: match.line, text: shown.text }) };
    return item;
  }

  /** What the tree shows, every group expanded (the `_toolOutputRecall.searchResultsItems` command). */
  snapshot(): ResultItemSnapshot[] {
    const describe = (node: ResultNode): ResultItemSnapshot => {
      const item = this.getTreeItem(node);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const highlights = typeof item.label === 'object' ? item.label.highlights : undefined;
      const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
      return {
        id: item.id,
        label,
        description: String(item.description ?? ''),
        contextValue: item.contextValue,
        ...(tooltip ? { tooltip } : {}),
        ...(highlights ? { highlights } : {}),
        ...(item.command ? { command: { command: item.command.command, arguments: item.command.arguments ?? [] } } : {}),
        ...(node.kind === 'output' ? { children: this.getChildren(node).map(describe) } : {}),
      };
    };
    return this.getChildren().map(describe);
  }

  dispose(): void {
    this.changeTree.dispose();
  }
}

function openCommand(node: OutputNode, offset?: number): vscode.Command {
  const options = { ...(offset !== undefined ? { offset } : {}), ...(node.sessionId ? { sessionId: node.sessionId } : {}) };
  return { command: OPEN_OUTPUT, title: vscode.l10n.t('Open Output in Inspector'), arguments: [node.outputId, options] };
}

function titleOf(output: ListedOutput): string {
  const text = (output.title ?? output.tool ?? output.outputId).split('\n')[0].trim() || output.outputId;
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function countText(hits: OutputHits): string {
  const count = hits.matches.length;
  if (hits.truncated) return vscode.l10n.t('{0}+ matches', count);
  return count === 1 ? vscode.l10n.t('1 match') : vscode.l10n.t('{0} matches', count);
}

function outputItem(node: OutputNode): vscode.TreeItem {
  const { output } = node.hits;
  const item = new vscode.TreeItem(titleOf(output), vscode.TreeItemCollapsibleState.Expanded);
  item.id = node.key;
  const when = relativeTime(output.createdAt, Date.now(), vscode.env.language);
  item.description = [countText(node.hits), node.origin?.who, when].filter(Boolean).join(' · ');
  item.contextValue = node.sessionId ? 'searchOutput' : 'searchAgentOutput';
  const failed = output.signal !== undefined || (typeof output.exitCode === 'number' && output.exitCode !== 0);
  item.iconPath = !output.complete
    ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
    : failed
      ? new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'))
      : new vscode.ThemeIcon(output.tool === RUN_COMMAND_TOOL ? 'terminal' : 'output');
  // appendText / appendCodeblock escape everything: a command line cannot inject markdown or links.
  const md = new vscode.MarkdownString();
  md.appendCodeblock(
    (output.title ?? output.tool ?? output.outputId).slice(0, 2000),
    output.tool === RUN_COMMAND_TOOL ? 'shellscript' : 'text',
  );
  md.appendText(
    [
      `${output.tool ?? vscode.l10n.t('unknown tool')} · ${exactTime(output.createdAt)}`,
      node.origin?.detail,
      output.outputId,
      output.complete
        ? undefined
        : vscode.l10n.t(
            'Incomplete copy: {0} bytes were dropped, and a match there cannot be found.',
            output.droppedBytes.toLocaleString('en-US'),
          ),
    ]
      .filter(Boolean)
      .join('\n'),
  );
  item.tooltip = md;
  item.accessibilityInformation = { label: [titleOf(output), item.description].join(', ') };
  return item;
}
