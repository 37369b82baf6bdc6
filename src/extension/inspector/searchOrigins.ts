/**
 * Whose each output of a Search All Outputs page is, as the Search Results tree names it: nothing
 * for this window's current session, "earlier session" (its name in the tooltip) for an earlier one,
 * the agent for another agent's session. This window's sessions are read by their ID in the inspector;
 * an agent's output is found by its ID (locate.ts).
 */
import * as vscode from 'vscode';
import type { CatalogSession } from '../../core/catalog/outputCatalog';
import { agentDisplayName } from '../../core/agents/agents';
import type { ListedOutput, OutputHits } from '../../core/types';
import { VS_CODE_OWNER } from '../sessions/catalogFolders';
import type { OutputNode, OutputOrigin } from './searchResultsTree';
import type { InspectorServices } from './services';

export interface Origins {
  /** Whose the output is; undefined for this window's current session. */
  of(output: ListedOutput): Promise<OutputOrigin | undefined>;
  /** Whether the output's session is this window's (current or earlier): the inspector then reads it by its ID. */
  isOwn(output: ListedOutput): boolean;
}

/**
 * How the sessions in scope are named in the tree. `sessions` is the catalog's listing before the
 * search; a page names each output's agent itself (the catalog's folder owner for this window's).
 */
export function originsOf(services: InspectorServices, sessions: CatalogSession[]): Origins {
  const byId = new Map(sessions.map((session) => [session.sessionId, session]));
  const names = new Map<string, Promise<OutputOrigin | undefined>>();
  const isCurrent = (output: ListedOutput): boolean => byId.get(output.sessionId)?.current === true;
  const agentsOf = (output: ListedOutput): string[] => output.agents ?? byId.get(output.sessionId)?.agents ?? [];
  const isOwn = (output: ListedOutput): boolean => isCurrent(output) || agentsOf(output).includes(VS_CODE_OWNER);
  const name = async (output: ListedOutput): Promise<OutputOrigin | undefined> => {
    const { sessionId } = output;
    if (isCurrent(output)) return undefined;
    if (isOwn(output)) {
      const named = await services.sessions?.name(sessionId).catch(() => undefined);
      return {
        who: vscode.l10n.t('earlier session'),
        detail: vscode.l10n.t('An earlier session of this window: {0}', named ?? sessionId),
      };
    }
    const clients = agentsOf(output).map((client) => agentDisplayName({ name: client }));
    const who = [...new Set(clients)].join(', ') || vscode.l10n.t('MCP server');
    return { who, detail: vscode.l10n.t("{who}'s session {sessionId} (read-only)", { who, sessionId }) };
  };
  return {
    of(output) {
      let known = names.get(output.sessionId);
      if (!known) {
        known = name(output);
        names.set(output.sessionId, known);
      }
      return known;
    },
    isOwn,
  };
}

export async function outputNode(runId: number, hits: OutputHits, origins: Origins): Promise<OutputNode> {
  const { output } = hits;
  return {
    kind: 'output',
    key: `search:${runId}:${output.sessionId}:${output.outputId}`,
    outputId: output.outputId,
    ...(origins.isOwn(output) ? { sessionId: output.sessionId } : {}),
    hits,
    origin: await origins.of(output),
  };
}
