// Hooks as an agent runs them (src/mcp/hook.ts): this test process is the agent, which starts the
// servers (connectStdio) and runs each hook as its own child, in a run folder of the test's own.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { waitUntil } from './mochaRun';
import { MCP_BUNDLE, okText, type StdioServer } from './mcpServer';

export const geminiEvent = (output: string) => ({
  session_id: 's1',
  cwd: '/',
  hook_event_name: 'AfterTool',
  tool_name: 'run_shell_command',
  tool_input: { command: 'make release' },
  // As Gemini CLI 0.61.0 sends it (seen live): the output without its last line break, then its own status lines.
  tool_response: {
    llmContent: `<untrusted_context>\nOutput: ${output.replace(/\n$/, '')}\n[Exit Code: 0]\nProcess Group PGID: 4242\n</untrusted_context>`,
    returnDisplay: output,
  },
});
export const qwenEvent = (output: string) => ({
  session_id: 's1',
  cwd: '/',
  hook_event_name: 'PostToolUse',
  tool_name: 'run_shell_command',
  tool_input: { command: 'make release' },
  tool_response: {
    llmContent: 'Tool output was too large and has been truncated.',
    returnDisplay: { type: 'shell_result', version: 1, output, exitCode: 0 },
  },
});

/** Each test's servers and hooks meet in a run folder of their own: `<tmp>/tool-output-recall` (hookRunDir.ts), and none in the temp folder. */
export const hookEnv = (tmp: string): Record<string, string> => ({ TMPDIR: tmp, XDG_RUNTIME_DIR: tmp });

/** Runs a hook as this process's child (this process is the agent that started the servers), in `tmp`, the servers' workspace. */
export function runHook(
  name: string,
  event: unknown,
  tmp: string,
  env: Record<string, string> = {},
): { stdout: string; stderr: string; status: number | null } {
  const run = spawnSync(process.execPath, [MCP_BUNDLE, 'hook', name], {
    input: JSON.stringify(event),
    encoding: 'utf8',
    cwd: tmp,
    env: { ...process.env, ...hookEnv(tmp), ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** Waits until `count` servers have announced themselves to hooks in the run folder under `tmp` (they do once their session is open). */
export async function announced(tmp: string, count = 1): Promise<void> {
  const runDir = path.join(tmp, 'tool-output-recall');
  const servers = () => {
    try {
      return readdirSync(runDir).filter((name) => name.endsWith('.json')).length;
    } catch {
      return 0;
    }
  };
  await waitUntil(`${count} server(s) announced in ${runDir}`, () => servers() >= count);
}

/** One read_tool_output page (its first line is the page's JSON). */
export async function readPage(
  server: StdioServer,
  outputId: string,
  offset: number,
): Promise<{ text: string; totalBytes: number; hasMore: boolean }> {
  const read = okText(await server.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset, maxBytes: 4096 } }));
  return JSON.parse(read.split('\n')[0]) as { text: string; totalBytes: number; hasMore: boolean };
}
