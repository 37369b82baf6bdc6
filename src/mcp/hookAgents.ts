/**
 * What each agent's post-tool hook event holds, and what the hook answers it with (read in each
 * CLI's shipped code; docs/agents.md, "Agents' own shell output: hooks", says where each is configured):
 * - Gemini CLI 0.61.0, AfterTool: the event comes before Gemini cuts the result (its 40,000-character
 *   cut, saved under ~/.gemini/tmp/<project>/tool-outputs/), so `tool_response.llmContent` holds the
 *   whole shell output, wrapped as `<untrusted_context>\nOutput: …\n[Exit Code: N]…</untrusted_context>`;
 *   `hookSpecificOutput.additionalContext` is appended to the result as `<hook_context>…`.
 * - Qwen Code 0.24.4, PostToolUse: `tool_response.llmContent` is already cut past 30,000 characters,
 *   but `tool_response.returnDisplay` holds the whole output: an object with `output` in its source,
 *   a string (the output, then "\nOutput too long and was saved to: <file>") as `qwen -p` sends it;
 *   additionalContext is appended to the result (with < and > escaped).
 * - GitHub Copilot CLI 1.0.102 (and VS Code's Copilot harness, the same runtime), postToolUse in its
 *   own format: `toolResult.textResultForLlm` is what the model gets, for a result over 20,480 bytes
 *   "Output too large to read at once (…). Saved to: /tmp/<ms>-copilot-tool-output-….txt" and 500
 *   characters; the file exists while the hook runs and is deleted when the CLI exits, so the hook
 *   reads it then. Only a top-level `additionalContext` reaches the model (its first 10,240 characters).
 * - Codex 0.171.0 has no hook here: its PostToolUse gets the same ~10 KB head and tail its model
 *   gets, and Codex saves the output nowhere (docs/agents.md, "Agents' own shell output: hooks").
 * The shell tool is `run_shell_command` in Gemini and Qwen (command `tool_input.command`), `bash` in
 * Copilot (command `toolArgs.command`).
 *
 * Every byte of the output an event holds is kept: only what the agent wrapped around it is taken off.
 * Gemini and Qwen trim the output themselves before any hook sees it (`stripAnsi(stdout + stderr)
 * .trim()` in their shell services; a pseudo-terminal's lines joined, then `trimEnd()`), so their copies
 * lack its leading and trailing whitespace, the final line break above all; no field of the event holds it.
 */
import { promises as fs } from 'node:fs';
import { KILO_HOOK_ARGS, OPENCODE_HOOK_ARGS } from '../core/agents/openCodePlugin';
import { DEFAULT_SENSITIVE_PATTERNS, isOpenCodeToolOutput } from '../core/files';
import { maskCopy, readSpillForCopy, type MaskedCopy } from '../core/files/spillCopy';
import { DEFAULT_LIMITS } from '../core/limits';
import type { RetainMeta } from '../core/types';

/** One event's output to retain, or undefined when there is nothing worth retaining. */
export interface HookCapture {
  agent: string;
  tool: string;
  command?: string;
  /** The output, masked: what the hook sends its server and shows the model comes from these bytes only. */
  content: MaskedCopy;
  /** Set when only the head and tail of a larger output are in `content`. */
  meta: Pick<RetainMeta, 'complete' | 'droppedBytes' | 'gapOffset'>;
  /** Secret-shaped values masked in `content`. */
  masked: number;
  /** What the agent showed its model, in words for the context. */
  shown: string;
}

/** An event's output text, masked (the store caps its copy as it caps every copy). */
const fromText = (text: string): Pick<HookCapture, 'content' | 'meta' | 'masked'> => ({ ...maskCopy(Buffer.from(text, 'utf8')), meta: {} });

export interface HookAgent {
  /** The hook's name after `hook` on the command line. */
  name: string;
  capture(event: Record<string, unknown>): Promise<HookCapture | undefined>;
  /** The hook's stdout for `context`. */
  answer(context: string): string;
}

/** Outputs shorter than this reach the model whole in every agent here: nothing to add. */
export const RETAIN_FROM_BYTES = 16 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const commandOf = (event: Record<string, unknown>): string | undefined => {
  const input = event.tool_input;
  return isObject(input) && typeof input.command === 'string' ? input.command : undefined;
};
const bigEnough = (text: string): boolean => text.length >= RETAIN_FROM_BYTES / 4 && Buffer.byteLength(text) >= RETAIN_FROM_BYTES;
const contextAnswer = (hookEventName: string) => (context: string) =>
  `${JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: context } })}\n`;

/** The lines Gemini CLI 0.61.0's run_shell_command adds after the output, in its order; the process group line always. */
const GEMINI_TRAILER =
  /(?:\n\[?Error: [^\n]*)?(?:\n\[?Exit Code: -?\d+\]?)?(?:\n\[?Signal: [^\n]*)?(?:\n\[?Background PIDs: [^\n]*)?\nProcess Group PGID: [^\n]*$/;
const UNTRUSTED_OPEN = '<untrusted_context>\nOutput: ';
const UNTRUSTED_CLOSE = '\n</untrusted_context>';

export const GEMINI_AFTER_TOOL: HookAgent = {
  name: 'gemini-cli-after-tool',
  async capture(event) {
    const response = event.tool_response;
    if (event.tool_name !== 'run_shell_command' || !isObject(response) || typeof response.llmContent !== 'string') return undefined;
    let text = response.llmContent;
    // Gemini's wrapper, not the command's output: offsets in the copy are the output's own.
    if (text.startsWith(UNTRUSTED_OPEN)) text = text.slice(UNTRUSTED_OPEN.length);
    if (text.endsWith(UNTRUSTED_CLOSE)) text = text.slice(0, -UNTRUSTED_CLOSE.length);
    // And its status lines after the output (Error, Exit Code, Signal, Background PIDs, then the
    // process group it always adds): taken off only when that last line is there.
    text = text.replace(GEMINI_TRAILER, '');
    if (!bigEnough(text)) return undefined;
    return {
      agent: 'gemini-cli',
      tool: 'run_shell_command',
      command: commandOf(event),
      ...fromText(text),
      shown: "Gemini CLI's cut of it when it is over its limit (40,000 characters by default: the first 20% and the last 80% of that)",
    };
  },
  answer: contextAnswer('AfterTool'),
};

/**
 * What Qwen Code 0.24.4 adds after the output in a returnDisplay string: the line naming the file it
 * saved a long output to (`qwen -p`), then its own notes, each after a blank line: that a foreground
 * command ran long (past half its timeout, so often a build with a big output) and why a commit's
 * attribution note was skipped. After its saved line every such paragraph is Qwen's; without that line
 * only the notes it is known to write are taken off (the output's own last paragraphs stay).
 */
const QWEN_NOTE = String.raw`\n\n(?:Note: this foreground command ran for \d+s\. |AI attribution note skipped: )[^\n]*`;
const QWEN_ADDED = new RegExp(String.raw`(?:\nOutput too long and was saved to: [^\n]*(?:\n\n[^\n]+)*|(?:${QWEN_NOTE})+)$`);

export const QWEN_POST_TOOL_USE: HookAgent = {
  name: 'qwen-code-post-tool-use',
  async capture(event) {
    const response = event.tool_response;
    const display = isObject(response) ? response.returnDisplay : undefined;
    const output = typeof display === 'string' ? display.replace(QWEN_ADDED, '') : isObject(display) ? display.output : undefined;
    if (event.tool_name !== 'run_shell_command' || typeof output !== 'string' || !bigEnough(output)) return undefined;
    return {
      agent: 'qwen-code',
      tool: 'run_shell_command',
      command: commandOf(event),
      ...fromText(output),
      shown: "Qwen Code's cut of it when it is over its limit (30,000 characters by default: about 4,000 characters of head and tail)",
    };
  },
  answer: contextAnswer('PostToolUse'),
};

/**
 * Where Copilot saved a result it cut: its note's own first line, and nothing else (issue 37: a small
 * output that merely mentions such a path was followed too). Both name forms seen from 1.0.102.
 */
const COPILOT_NOTE = /^Output too large to read at once \([^()\n]*\)\. Saved to: (\/[^\n]+\.txt)$/;

export const COPILOT_POST_TOOL_USE: HookAgent = {
  name: 'copilot-cli-post-tool-use',
  async capture(event) {
    const result = event.toolResult;
    const note = isObject(result) ? result.textResultForLlm : undefined;
    const saved = typeof note === 'string' ? COPILOT_NOTE.exec(note.split('\n', 1)[0])?.[1] : undefined;
    if (event.toolName !== 'bash' || !saved) return undefined;
    // The read tools' policy: a regular file directly in the temp folder, named as Copilot names it,
    // one link, owned by this user, not sensitive; at most the copy cap, its head and tail past it.
    const copy = await readSpillForCopy(
      saved,
      { folders: [], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS },
      DEFAULT_LIMITS.copyBytes,
      'the Copilot CLI hook',
    );
    const args = event.toolArgs;
    return {
      agent: 'copilot-cli',
      tool: 'bash',
      command: isObject(args) && typeof args.command === 'string' ? args.command : undefined,
      content: copy.content,
      meta: copy.meta,
      masked: copy.masked,
      shown: `only Copilot's note with the first 500 characters (Copilot saved it to ${saved} and deletes that file when it exits)`,
    };
  },
  // Copilot reads a top-level additionalContext, not Claude Code's hookSpecificOutput.
  answer: (context) => `${JSON.stringify({ additionalContext: context })}\n`,
};

/**
 * OpenCode 1.18.33 and Kilo Code 7.7.9 have no hooks file: our plugin (src/core/agents/openCodePlugin.ts)
 * sends this event from their `tool.execute.after` when the bash tool cut its output and saved it
 * whole: `{ tool, args: { command }, cwd, outputPath, exit }`; the answer's additionalContext is
 * appended to what the model is sent. The saved file is read under the read tools' policy (only
 * their own tool-output folders, owned by this user: spillFiles.ts).
 */
function openCodeAfterTool(name: string, agent: string, product: string): HookAgent {
  return {
    name,
    async capture(event) {
      const saved = event.outputPath;
      if (event.tool !== 'bash' || typeof saved !== 'string') return undefined;
      const real = await fs.realpath(saved).catch(() => saved);
      if (!(await isOpenCodeToolOutput(real))) throw new Error(`${saved} is not an output ${product} saved (its tool-output folder)`);
      const copy = await readSpillForCopy(
        saved,
        { folders: [], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS },
        DEFAULT_LIMITS.copyBytes,
        `the ${product} plugin`,
      );
      const args = event.args;
      return {
        agent,
        tool: 'bash',
        command: isObject(args) && typeof args.command === 'string' ? args.command : undefined,
        content: copy.content,
        meta: copy.meta,
        masked: copy.masked,
        shown: `${product}'s cut of it: at most its last 2,000 lines or 51,200 bytes (${product} saved the whole output to ${saved})`,
      };
    },
    answer: (context) => `${JSON.stringify({ additionalContext: context })}\n`,
  };
}

export const OPENCODE_AFTER_TOOL = openCodeAfterTool(OPENCODE_HOOK_ARGS[1], 'opencode', 'OpenCode');
export const KILO_AFTER_TOOL = openCodeAfterTool(KILO_HOOK_ARGS[1], 'kilo-code', 'Kilo Code');

export const HOOK_AGENTS: readonly HookAgent[] = [
  GEMINI_AFTER_TOOL,
  QWEN_POST_TOOL_USE,
  COPILOT_POST_TOOL_USE,
  OPENCODE_AFTER_TOOL,
  KILO_AFTER_TOOL,
];
