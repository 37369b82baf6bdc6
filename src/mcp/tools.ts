/**
 * The five tools as the MCP server runs them: the manifest's names, descriptions and input schemas,
 * the engine's result texts (src/core/tools, shared with the extension), and errors as the text the
 * model reads. run_code's `tools.call` comes back here, so a program reaches this server's tools.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import type { RecallSettings } from '../core/settings';
import { READ_FILE_PAGE_TOOL, READ_TOOL_OUTPUT_TOOL, RUN_CODE_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../core/toolNames';
import { checkToolInput } from '../core/tools/inputCheck';
import { TOOL_DECLARATIONS } from '../core/tools/manifest';
import { toolErrorText, unknownToolText } from '../core/tools/parts';
import { readFilePageText, type ReadFilePageInput } from '../core/tools/readFilePage';
import { readToolOutputText, type ReadToolOutputInput } from '../core/tools/readToolOutput';
import { describeCodeRun, runCodeTool, validateRunCodeInput, type RunCodeInput } from '../core/tools/runCode';
import { describeCommandRun, runCommandTool, validateRunCommandInput, type RunCommandInput } from '../core/tools/runCommand';
import { searchToolOutputText, type SearchToolOutputInput } from '../core/tools/searchToolOutput';
import type { RecallStore } from '../core/types';
import type { Log } from './log';

/** Reading tools change nothing; the tools that run things may do anything the user's shell can (the client asks first). */
const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const RUNS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
export const TOOL_ANNOTATIONS: Record<string, ToolAnnotations> = {
  [READ_TOOL_OUTPUT_TOOL]: READS,
  [SEARCH_TOOL_OUTPUT_TOOL]: READS,
  [READ_FILE_PAGE_TOOL]: READS,
  [RUN_COMMAND_TOOL]: RUNS,
  [RUN_CODE_TOOL]: RUNS,
};

export interface ToolRun {
  text: string;
  isError: boolean;
}

export interface AgentToolsDeps {
  store: RecallStore;
  /** The workspace's real path. */
  workspace: string;
  settings: RecallSettings;
  log: Log;
  /** Aborts every running tool when the server shuts down. */
  shutdown: AbortSignal;
}

export class AgentTools {
  private readonly declarations = new Map(TOOL_DECLARATIONS.map((tool) => [tool.name, tool]));

  constructor(private readonly deps: AgentToolsDeps) {}

  has(name: string): boolean {
    return this.declarations.has(name);
  }

  names(): string[] {
    return [...this.declarations.keys()];
  }

  list(): Tool[] {
    return TOOL_DECLARATIONS.map((tool) => ({
      name: tool.name,
      title: tool.displayName,
      description: tool.modelDescription,
      // The manifest's schema as it is (plain JSON; the SDK's type wants a JSON value type).
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      annotations: TOOL_ANNOTATIONS[tool.name],
    }));
  }

  /** Runs a tool; a failure is a result too (isError, with the engine's message), never a throw. */
  async call(name: string, input: unknown, signal?: AbortSignal): Promise<ToolRun> {
    try {
      return { text: await this.run(name, input, signal), isError: false };
    } catch (error) {
      return { text: toolErrorText(name, error), isError: true };
    }
  }

  private async run(name: string, input: unknown, callSignal: AbortSignal | undefined): Promise<string> {
    const declaration = this.declarations.get(name);
    if (!declaration) throw new Error(unknownToolText(name, this.names()));
    checkToolInput(declaration.inputSchema, input);
    const { store, workspace, settings, log } = this.deps;
    const signal = callSignal ? AbortSignal.any([callSignal, this.deps.shutdown]) : this.deps.shutdown;
    const files = {
      folders: [workspace],
      allowOutsideWorkspace: settings.allowOutsideWorkspace,
      sensitivePatterns: settings.sensitivePatterns,
    };
    switch (name) {
      case READ_TOOL_OUTPUT_TOOL:
        return readToolOutputText(store, input as ReadToolOutputInput, settings.pageBytes);
      case SEARCH_TOOL_OUTPUT_TOOL:
        return searchToolOutputText(store, input as SearchToolOutputInput, signal, files);
      case READ_FILE_PAGE_TOOL:
        return readFilePageText(input as ReadFilePageInput, files);
      case RUN_COMMAND_TOOL: {
        validateRunCommandInput(input as RunCommandInput);
        const { text, result } = await runCommandTool(input as RunCommandInput, {
          store,
          baseDir: workspace,
          defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
          previewBytes: settings.previewBytes,
          streamBytes: settings.streamBytes,
          maxConcurrent: settings.commandsMaxConcurrent,
          signal,
          onPreviewNotRecorded: (message) => log.warn(`${RUN_COMMAND_TOOL}: ${message}`),
          onQueued: (reason) => log.info(`${RUN_COMMAND_TOOL} queued: ${reason}`),
        });
        log.info(describeCommandRun(result));
        return text;
      }
      case RUN_CODE_TOOL: {
        validateRunCodeInput(input as RunCodeInput);
        // A nested failure rejects with the text the model would read, which the program can catch.
        const callTool = async (nested: string, nestedInput: Record<string, unknown>, ended: AbortSignal): Promise<string> => {
          if (!this.has(nested))
            throw new Error(
              unknownToolText(
                nested,
                this.names().filter((n) => n !== RUN_CODE_TOOL),
              ),
            );
          const run = await this.call(nested, nestedInput, AbortSignal.any([signal, ended]));
          if (run.isError) throw new Error(run.text);
          return run.text;
        };
        const { text, result } = await runCodeTool(input as RunCodeInput, {
          callTool,
          store,
          previewBytes: settings.previewBytes,
          maxConcurrent: settings.commandsMaxConcurrent,
          signal,
          onPreviewNotRecorded: (message) => log.warn(`${RUN_CODE_TOOL}: ${message}`),
          onQueued: (reason) => log.info(`${RUN_CODE_TOOL} queued: ${reason}`),
        });
        log.info(describeCodeRun(result));
        return text;
      }
      default:
        throw new Error(`${name} is declared in package.json but the MCP server does not run it.`);
    }
  }
}
