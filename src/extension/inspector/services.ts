/**
 * What the inspector's parts (tree, panels, side view, actions) are given by the composition root:
 * its own file, so the parts that take it and register.ts, which wires them, do not import each other.
 */
import type * as vscode from 'vscode';
import type { OutputCatalog } from '../../core/catalog/outputCatalog';
import type { RecallStore } from '../../core/types';
import type { AgentSessions } from '../agents/agentSessions';
import type { SessionViews } from '../sessions/sessionViews';

export interface InspectorServices {
  /**
   * The store that holds `outputId`: another agent's session (read-only) when the output is one of
   * theirs, else the current session's store. Without an ID it is opened (or started) lazily; looking
   * an ID up never starts a session (NOT_FOUND when this window has none).
   */
  store(outputId?: string): Promise<RecallStore>;
  /**
   * This window's sessions, the current one and earlier ones (read-only): an open inspector reads its
   * output's session whatever session is current, and names it. Absent in hosts without sessions.
   */
  sessions?: SessionViews;
  /** The sessions MCP servers keep for this workspace (the tree's groups). */
  agents?: Pick<AgentSessions, 'list' | 'outputs'>;
  /**
   * Every retained output of the workspace (this window's sessions, earlier ones and other agents'),
   * for Search All Outputs. Absent in hosts without it: the command then says it cannot search.
   */
  catalog?: Pick<OutputCatalog, 'searchAcross' | 'sessions' | 'warm'>;
  /** Fired after a retain, a remove or a session switch. */
  onDidChangeOutputs: vscode.Event<void>;
  log: vscode.LogOutputChannel;
  fireChanged(): void;
}
