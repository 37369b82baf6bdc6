/**
 * The plugin "Connect Other Agents…" gives OpenCode and Kilo Code (an OpenCode fork): one file of
 * ours in the workspace's `.opencode/plugins/` (`.kilo/plugins/`), which they load at start.
 *
 * OpenCode 1.18.33 cuts its bash tool's output past 2,000 lines or 51,200 bytes: the model gets the
 * last part and a note, the whole output is saved to `<data>/opencode/tool-output/tool_…`
 * (spillFiles.ts), and `tool.execute.after` receives the result object the model will be sent, with
 * `metadata.truncated` and `metadata.outputPath` (seen in a real run; what a plugin appends to
 * `output.output` reaches the model). The plugin hands that saved file to our hook
 * (`tool-output-recall-mcp hook opencode-after-tool`, src/mcp/hookAgents.ts), which retains it in the
 * agent's own server's session, and appends the hook's short note (outputId, what was omitted, the
 * notable lines, the tail) to what the model is sent. It never fails the tool: any problem leaves
 * the result as OpenCode made it.
 */
import type { ConfigMerge } from './merge';

/** The hook each agent's plugin runs (src/mcp/hookAgents.ts). */
export const OPENCODE_HOOK_ARGS = ['hook', 'opencode-after-tool'] as const;
export const KILO_HOOK_ARGS = ['hook', 'kilo-after-tool'] as const;

/** The plugin file's name in the agent's plugins folder. */
export const PLUGIN_FILE = 'tool-output-recall.js';

/** The first line of every plugin we write: a file without it is someone else's and is never replaced. */
const OURS =
  "// Tool Output Recall's plugin for OpenCode and Kilo Code (Connect Other Agents… or `tool-output-recall-mcp plugin` writes it).";

/** How long the plugin waits for the hook (the hook itself gives its server 30 s to retain). */
const HOOK_WAIT_MS = 60_000;

/** The plugin's source: plain JavaScript (OpenCode runs it in Bun), the paths embedded as JSON strings. */
export function openCodePluginSource(node: string, launcher: string, args: readonly string[]): string {
  return `${OURS}
// It hands a bash output the agent cut and saved to the Tool Output Recall MCP server of this agent,
// and tells the model how to read it (an outputId, the notable lines, the tail).
import { spawn } from 'node:child_process';

const COMMAND = ${JSON.stringify([node, launcher, ...args])};

function runHook(event) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve('');
      return;
    }
    const timer = setTimeout(() => child.kill(), ${HOOK_WAIT_MS});
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => (out += text));
    child.on('error', () => resolve(''));
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

export const ToolOutputRecall = async ({ directory }) => ({
  'tool.execute.after': async (input, output) => {
    const metadata = output && output.metadata;
    if (!input || input.tool !== 'bash' || !metadata || metadata.truncated !== true || typeof metadata.outputPath !== 'string') return;
    try {
      const answer = JSON.parse((await runHook({ tool: input.tool, args: input.args, cwd: directory, outputPath: metadata.outputPath, exit: metadata.exit })) || '{}');
      if (typeof answer.additionalContext === 'string') output.output += '\\n\\n' + answer.additionalContext;
    } catch {
      // The result stays as OpenCode made it.
    }
  },
});
`;
}

/** The plugin file's new text against what is there: ours is replaced when it differs, anyone else's is left alone. */
export function mergePlugin(before: string | undefined, text: string, problem: string): ConfigMerge {
  if (before === undefined) return { ok: true, change: 'create', text, others: [] };
  if (before === text) return { ok: true, change: 'unchanged', text, others: [] };
  if (!before.startsWith(OURS)) return { ok: false, problem };
  return { ok: true, change: 'replace', text, others: [] };
}
