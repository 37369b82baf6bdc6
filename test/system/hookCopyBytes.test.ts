// The hooks of Gemini CLI and Qwen Code (src/mcp/hookAgents.ts) keep every byte of the output their
// agent's event holds, and nothing the agent wrapped around it: leading and trailing whitespace, line
// breaks at the end, CRLF, the output's own last paragraphs. The copies of the live agents lack the
// output's final line break because both agents trim the output before any hook sees it (their shell
// services' `stripAnsi(stdout + stderr).trim()`); an event that holds it keeps it. Real processes:
// the server and each hook (helpers/hooks.ts), the copy read back whole through read_tool_output.
import assert from 'node:assert/strict';
import { announced, geminiEvent, hookEnv, qwenEvent, runHook } from '../unit/helpers/hooks';
import { connectStdio, ensureBuilt, okText, type StdioServer } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** About 40 KB (past the 16 KiB the hooks retain from), its last line the field. */
const body = (eol = '\n'): string => `${Array.from({ length: 2000 }, (_, i) => `build step ${i} done`).join(eol)}${eol}checksum=5be0c2d9`;

/** The retained copy, every byte of it, paged with read_tool_output (following nextOffset). */
async function copyOf(server: StdioServer, outputId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let offset = 0; ;) {
    const read = okText(await server.client.callTool({ name: 'read_tool_output', arguments: { outputId, offset, maxBytes: 4096 } }));
    const page = JSON.parse(read.split('\n')[0]) as { text: string; nextOffset: number; hasMore: boolean };
    parts.push(Buffer.from(page.text));
    if (!page.hasMore) return Buffer.concat(parts);
    offset = page.nextOffset;
  }
}

describe('hooks keep every byte of the output their agent gave them', function () {
  this.timeout(240_000);
  const dirs = useTempDirs('hook-bytes');
  let tmp: string;
  let server: StdioServer;
  before(async () => {
    await ensureBuilt();
    tmp = dirs.make();
    server = await connectStdio(['--workspace', tmp, '--store', dirs.make()], 'legacy', hookEnv(tmp));
    await announced(tmp);
  });
  after(() => server?.close());

  /** Runs hook `name` with `event` and returns the bytes its server retained. */
  async function retained(name: string, event: unknown): Promise<Buffer> {
    const hook = runHook(name, event, tmp);
    assert.equal(hook.status, 0, hook.stderr);
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    const outputId = /outputId "(out_[0-9a-f]{24})"/.exec(context)?.[1] ?? assert.fail(context);
    return copyOf(server, outputId);
  }

  /** A Gemini CLI 0.61.0 event whose llmContent holds `output` exactly (Gemini's own trim left out), with its status lines. */
  const geminiHolding = (output: string) => {
    const event = geminiEvent(output);
    event.tool_response.llmContent = `<untrusted_context>\nOutput: ${output}\nExit Code: 2\nProcess Group PGID: 4242\n</untrusted_context>`;
    return event;
  };
  /** A Qwen Code 0.24.4 event whose returnDisplay is the string `qwen -p` sends: the output, then what Qwen adds after it. */
  const qwenString = (display: string) => {
    const event = qwenEvent('');
    event.tool_response.returnDisplay = display as never;
    return event;
  };
  const SAVED = '\nOutput too long and was saved to: /root/.qwen/tmp/ab/run_shell_command_9b6406f17ea8.output';
  const LONG_RUN =
    '\n\nNote: this foreground command ran for 75s. Next time you run a similar long-running process (build watchers, dev servers, soak tests, polling loops), pass `is_background: true` so the agent isn’t blocked while the command runs.';
  const ATTRIBUTION = '\n\nAI attribution note skipped: payload exceeded the 30 KB size cap. Co-authored-by trailer is unaffected.';

  it('gemini-cli-after-tool: the output as Gemini gives it (trimmed: no final line break) is the copy, byte for byte', async () => {
    const output = body();
    assert.deepEqual(await retained('gemini-cli-after-tool', geminiEvent(`${output}\n`)), Buffer.from(output));
  });

  it('gemini-cli-after-tool: leading spaces, CRLF and trailing line breaks the event holds are kept', async () => {
    const output = `  \n${body('\r\n')}\r\n\n \n`;
    assert.deepEqual(await retained('gemini-cli-after-tool', geminiHolding(output)), Buffer.from(output));
  });

  it('qwen-code-post-tool-use: returnDisplay.output is the copy, its final line break and trailing spaces included', async () => {
    const output = `\t${body()}\n  \n`;
    assert.deepEqual(await retained('qwen-code-post-tool-use', qwenEvent(output)), Buffer.from(output));
  });

  it('qwen-code-post-tool-use: its saved-to line and the notes it adds after it (a long run, a skipped attribution) are not in the copy', async () => {
    // Qwen trims the output, so the saved-to line follows its last character.
    const output = `${body()}\n\nBuild finished.\n\nAll 2000 steps passed.`;
    for (const added of [SAVED, `${SAVED}${LONG_RUN}`, `${SAVED}${LONG_RUN}${ATTRIBUTION}`, LONG_RUN, `${LONG_RUN}${ATTRIBUTION}`]) {
      assert.deepEqual(
        await retained('qwen-code-post-tool-use', qwenString(`${output}${added}`)),
        Buffer.from(output),
        JSON.stringify(added),
      );
    }
  });

  it("qwen-code-post-tool-use: an output's own last paragraphs stay when Qwen added nothing", async () => {
    const output = `${body()}\n\nNote: this line is the command's own.\n\nDone.`;
    assert.deepEqual(await retained('qwen-code-post-tool-use', qwenString(output)), Buffer.from(output));
  });
});
