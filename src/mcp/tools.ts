/**
 * The tools as the MCP server runs them: the registry's (src/core/tools/registry.ts, shared with
 * VS Code) with the manifest's names, descriptions and input schemas, annotations from each spec's
 * effect, and failures as the text the model reads. run_code's `tools.call` comes back to the
 * registry, so a program reaches this server's tools.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import type { RecallSettings } from '../core/settings';
import { TOOL_NAMES, invokeTool, isToolName, toolDeclaration, toolSpec, type ToolName, type ToolRun } from '../core/tools/registry';
import { announcedVsCodeSessions } from '../core/agentStore';
import { OutputCatalog } from '../core/catalog/outputCatalog';
import type { ToolContext, ToolEffect } from '../core/tools/toolSpec';
import type { RecallStore } from '../core/types';
import type { Log } from './log';

export type { ToolRun };

/** Claude Code's per-tool `_meta` key that keeps a tool out of ToolSearch deferral (read in 2.1.332). */
const ALWAYS_LOAD = 'anthropic/alwaysLoad';

/** Reading tools change nothing; the tools that run things may do anything the user's shell can (the client asks first). */
export const EFFECT_ANNOTATIONS: Record<ToolEffect, ToolAnnotations> = {
  reads: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  runs: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

export interface AgentToolsDeps {
  /** The session's store; it may still be opening when the first calls arrive (main.ts answers first). */
  store: () => Promise<RecallStore>;
  /** The workspace's real path. */
  workspace: string;
  /** The session folder (the workspace's, shared by every agent's server): what list and search across outputs cover. */
  storeDir: string;
  settings: RecallSettings;
  log: Log;
  /** Aborts every running tool when the server shuts down. */
  shutdown: AbortSignal;
}

/** What a front end may set per call. */
export interface CallOptions {
  /** The preview size for run_command and run_code (a client's result limit); default: the setting. */
  previewBytes?: number;
  /** The lines each preview may take, for a client that cuts results by lines (OpenCode, Kilo Code). */
  previewLines?: number;
}

/** The tools as tools/list gives them: the manifest's, with annotations from each spec's effect. */
export function listTools(): Tool[] {
  return TOOL_NAMES.map((name) => {
    const declaration = toolDeclaration(name);
    return {
      name,
      title: declaration.displayName,
      description: declaration.modelDescription,
      // The manifest's schema as it is (plain JSON; the SDK's type wants a JSON value type).
      inputSchema: declaration.inputSchema as Tool['inputSchema'],
      annotations: EFFECT_ANNOTATIONS[toolSpec(name).effect],
      // Claude Code defers MCP tools behind its ToolSearch (the model sees names only and needs
      // an extra call to load one); the few small tools the model needs right after a cut result
      // are worth their schemas in its context. Clients that do not know the key ignore it.
      _meta: { [ALWAYS_LOAD]: true },
    };
  });
}

export class AgentTools {
  /** This workspace's sessions: every agent's server's (one folder) and VS Code's, where a window announced it. */
  private readonly catalog: OutputCatalog;

  constructor(private readonly deps: AgentToolsDeps) {
    const { storeDir, store } = deps;
    this.catalog = new OutputCatalog({
      folders: async () => [{ dir: storeDir }, ...(await announcedVsCodeSessions(storeDir)).map((dir) => ({ dir, owner: 'VS Code' }))],
      current: store,
    });
  }

  has(name: string): name is ToolName {
    return isToolName(name);
  }

  names(): readonly ToolName[] {
    return TOOL_NAMES;
  }

  /**
   * Gets the search across outputs ready (OutputCatalog.warm): a fresh server's first search across this
   * workspace's sessions otherwise pays the search worker's start and every session's index (~0.5 s). The
   * worker starts at once, while the server's own session may still be opening (the warm-up lists it). Held a
   * short while unless a tool call follows: an agent may never call our tools.
   */
  warm(): void {
    void this.catalog.warm('tools listed');
  }

  /** Runs a tool; a failure is a result too (isError, with the engine's message), never a throw. */
  async call(name: string, input: unknown, signal?: AbortSignal, options: CallOptions = {}): Promise<ToolRun> {
    return invokeTool(name, input, { ...this.context(signal), previewBytes: options.previewBytes, previewLines: options.previewLines });
  }

  private context(callSignal: AbortSignal | undefined): ToolContext {
    const { store, workspace, settings, log, shutdown } = this.deps;
    return {
      store,
      catalog: this.catalog,
      settings,
      folders: [workspace],
      signal: callSignal ? AbortSignal.any([callSignal, shutdown]) : shutdown,
      log,
    };
  }
}
