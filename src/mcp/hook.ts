/**
 * `tool-output-recall-mcp hook claude-code-post-tool-use`: a PostToolUse hook for Claude Code's own
 * tools (Bash above all). When a tool's output is too large to hand the model, Claude Code 2.1.332
 * saves it whole to a file under its `tool-results` folder (spillFiles.ts) and the model gets a
 * ~2 KB `<persisted-output>` note: the path and the output's first 2,000 characters. The hook's
 * event says so (`tool_response.persistedOutputPath`, `persistedOutputSize`) but its `stdout` holds
 * only ~30 KB of the output, so the hook cannot retain the output itself; it points the model at the
 * saved file instead, through `hookSpecificOutput.additionalContext` (the shape Claude Code's
 * PostToolUse output schema accepts): the path, its size and whether it is whole, the exact
 * search_tool_output / read_file_page calls that read it, the notable lines past what the model saw
 * (the engine's scanner and block) and the file's last lines, in at most CONTEXT_BYTES.
 *
 * Every hook masks first (issue 37): an output reaches the context, and a server's copy, only as
 * `MaskedCopy` bytes (spillCopy.ts), masked as read_file_page and search_tool_output mask a file, so a
 * key whose BEGIN line lies far before the tail, or a token a notable line is clipped through, is
 * masked as a whole before anything is scanned, cut or tailed, with or without a server.
 *
 * It never fails the tool: any problem is one line on stderr, nothing on stdout, exit code 0.
 */
import { CLAUDE_HOOK_ARGS } from '../core/agents/claudeHook';
import { DEFAULT_SENSITIVE_PATTERNS, openReadableFile, type ReadPolicy } from '../core/files';
import { maskedNote } from '../core/files/secretShapes';
import { readSpillForCopy, streamMasked } from '../core/files/spillCopy';
import { clip } from '../core/notable/render';
import { READ_FILE_PAGE_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../core/toolNames';
import { DEFAULT_LIMITS, formatBytes } from '../core/limits';
import { describeError } from '../core/errors';
import { HOOK_AGENTS, type HookAgent, type HookCapture } from './hookAgents';
import { findAgentServer, retainThroughServer, type FoundServer } from './hookClient';
import { CONTEXT_BYTES, MaskedSummary, TAIL_BYTES, retainedContext } from './hookContext';
import { readHookEvent } from './hookEvent';
import { PROGRAM } from './log';

export { CONTEXT_BYTES, TAIL_BYTES };

/** The hook's name, after `hook` (`tool-output-recall-mcp hook claude-code-post-tool-use`). */
const CLAUDE_POST_TOOL_USE = CLAUDE_HOOK_ARGS[1];

/** The characters of a saved output Claude Code 2.1.332 shows the model in its note (`r$=2000` in its code). */
export const CLAUDE_PREVIEW_CHARS = 2000;
/** Bytes read per step when scanning the saved file. */
const SCAN_CHUNK = 1024 * 1024;
/**
 * The most of an event read from stdin. The hook needs only a few fields; Claude Code 2.1.332 puts
 * at most ~30 KB of a saved output in a Bash event, so anything near this is not an event to act on,
 * and reading it whole would only grow the process (a 200 MB payload took it to 880 MiB).
 */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/** The part of Claude Code's PostToolUse event the hook reads. */
interface PostToolUseEvent {
  tool_name?: unknown;
  cwd?: unknown;
  tool_response?: { persistedOutputPath?: unknown; persistedOutputSize?: unknown };
}

/** The most of a Gemini CLI or Qwen Code event: the whole output (Gemini keeps up to 16 MiB) JSON-escaped, with room to spare. */
export const MAX_OUTPUT_EVENT_BYTES = 64 * 1024 * 1024;
/** How long a hook waits for its server to retain an output (the agents give a hook 60 s). */
const RETAIN_TIMEOUT_MS = 30_000;

/**
 * The read tools' policy for a file Claude Code saved (its tool-results folder, no link out, no
 * FIFO, nothing sensitive), with no workspace: the event's `cwd` is whatever its sender wrote
 * (`"cwd": "/"` would make every file a workspace file), and Claude Code never saves there.
 */
const SAVED_FILE_POLICY: ReadPolicy = { folders: [], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS };

/** Runs `hook <name>`: reads the event on stdin, writes the hook's JSON output (or nothing) on stdout. */
export async function runHook(args: readonly string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<void> {
  try {
    const agent = HOOK_AGENTS.find((candidate) => candidate.name === args[0]);
    if (agent) {
      const context = await retainedOutputContext(agent, await readHookEvent(stdin, MAX_OUTPUT_EVENT_BYTES));
      if (context !== undefined) process.stdout.write(agent.answer(context));
      return;
    }
    if (args[0] !== CLAUDE_POST_TOOL_USE) {
      const names = [CLAUDE_POST_TOOL_USE, ...HOOK_AGENTS.map((candidate) => candidate.name)].join(', ');
      throw new Error(`unknown hook "${args[0] ?? ''}" (expected one of ${names})`);
    }
    const context = await savedOutputContext(await readHookEvent(stdin, MAX_EVENT_BYTES));
    if (context !== undefined) {
      process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: context } })}\n`);
    }
  } catch (error) {
    process.stderr.write(`[${PROGRAM}] hook: ${describeError(error)}\n`);
  }
}

/** Where the hook runs: its own working folder and the one its event names (the agent's). */
const hookFolders = (event: { cwd?: unknown }): string[] => [process.cwd(), ...(typeof event.cwd === 'string' ? [event.cwd] : [])];

/**
 * Hands the output an event holds to the agent's own server to retain, and returns the context for
 * the model; undefined when the output is small, or no server of this agent is running (a line on
 * stderr says which).
 */
export async function retainedOutputContext(agent: HookAgent, event: Record<string, unknown>): Promise<string | undefined> {
  const capture = await agent.capture(event);
  if (!capture) return undefined;
  const server = await findAgentServer(hookFolders(event));
  if (!server) {
    process.stderr.write(
      `[${PROGRAM}] hook: no ${PROGRAM} server of this agent is running in this workspace; the output is not retained\n`,
    );
    return undefined;
  }
  return retainMasked(server, capture);
}

/** Retains a masked capture through `server` and returns the context naming its outputId. */
async function retainMasked(server: FoundServer, capture: HookCapture): Promise<string> {
  const { meta } = capture;
  const answer = await retainThroughServer(
    server,
    {
      agent: capture.agent,
      tool: capture.tool,
      ...(capture.command !== undefined ? { command: capture.command } : {}),
      text: capture.content.toString('utf8'),
      ...(meta.complete === false ? { complete: false, droppedBytes: meta.droppedBytes ?? 0 } : {}),
    },
    RETAIN_TIMEOUT_MS,
  );
  if ('error' in answer) throw new Error(`the server could not retain the output: ${answer.error}`);
  return retainedContext(capture.content, { tool: capture.tool, shown: capture.shown, masked: capture.masked, ...answer });
}

/**
 * The additionalContext for one PostToolUse event, or undefined when the tool's output was not
 * saved to a file (the model saw all of it) or the file is not one the read tools would read.
 */
export async function savedOutputContext(
  event: PostToolUseEvent,
  findServer: (folders: string[]) => Promise<FoundServer | undefined> = findAgentServer,
): Promise<string | undefined> {
  const response = event.tool_response;
  const saved = response?.persistedOutputPath;
  if (typeof saved !== 'string' || saved === '') return undefined;
  const tool = typeof event.tool_name === 'string' ? event.tool_name : 'tool';
  // With this agent's server running, the output goes into its session (an outputId, the inspector): Claude Code may clean its folder up.
  const server = await findServer(hookFolders(event));
  if (server) {
    const copy = await readSpillForCopy(saved, SAVED_FILE_POLICY, DEFAULT_LIMITS.copyBytes, 'the Claude Code hook');
    const shown = `only a note with its first ${CLAUDE_PREVIEW_CHARS} characters (Claude Code saved it to ${saved})`;
    return retainMasked(server, { agent: 'claude-code', tool, ...copy, shown });
  }
  const file = await openReadableFile(saved, SAVED_FILE_POLICY, 'the Claude Code hook');
  try {
    const size = file.stats.size;
    const declared = typeof response?.persistedOutputSize === 'number' ? response.persistedOutputSize : size;
    const whole =
      size >= declared
        ? `${size} bytes, the complete output`
        : `its first ${size} of ${declared} bytes: Claude Code saved no more, the rest is lost`;
    const quoted = JSON.stringify(saved);
    // One masked pass over the file, of any size; line numbers, not read_tool_output offsets: the lines are read with read_file_page {line}.
    const summary = new MaskedSummary({ ignoreBefore: CLAUDE_PREVIEW_CHARS, readable: false });
    const masked = await streamMasked(file.handle, SCAN_CHUNK, (bytes) => summary.write(bytes));
    const { notable, tail } = summary.finish('byteOffset');
    const head = [
      `[Tool Output Recall] The ${tool} output was saved to ${saved} (${whole}; ${formatBytes(size)}). You saw only a note with its first ${CLAUDE_PREVIEW_CHARS} characters.`,
      `Do not run the command again to see more: search the file with ${SEARCH_TOOL_OUTPUT_TOOL} {"path": ${quoted}, "pattern": "…"} and read around a match with ${READ_FILE_PAGE_TOOL} {"path": ${quoted}, "byteOffset": N} (N: the match's lineOffset), or a line with {"path": ${quoted}, "line": N}.`,
      ...(masked > 0 ? [maskedNote(masked, 'in the file (here and in what the read tools return)')] : []),
    ].join('\n');
    const parts = [head, notable && `${notable} (line numbers of the file)`, tail].filter(Boolean);
    return clip(parts.join('\n'), CONTEXT_BYTES);
  } finally {
    await file.handle.close();
  }
}
