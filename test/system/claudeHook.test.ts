// Claude Code's PostToolUse hook run as Claude Code runs it: the real built server as a child process
// (`node dist/mcp.js hook claude-code-post-tool-use`), for a Bash output Claude Code saved to its
// tool-results folder. The entry "Connect Other Agents…" merges and what the hook tells the model, in
// process: test/unit/claudeHook.test.ts.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { CLAUDE_HOOK_ARGS } from '../../src/core/agents/claudeHook';
import { MAX_EVENT_BYTES } from '../../src/mcp/hook';

import { bashEvent, writeSavedOutput } from '../unit/helpers/claudeHook';
import { MCP_BUNDLE, ensureBuilt } from '../unit/helpers/mcpServer';
import { useClaudeResults } from '../unit/helpers/readable';
import { useTempDirs } from '../unit/helpers/tempDirs';

describe('Claude Code hook: what it tells the model (hook claude-code-post-tool-use)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('claude-hook');
  const claude = useClaudeResults(() => dirs.make());
  let config: string;
  let saved: string;
  let size: number;
  before(async () => {
    config = claude.config();
    ({ saved, size } = await writeSavedOutput(claude.results()));
  });

  it('dist/mcp.js hook: an event over MAX_EVENT_BYTES on stdin is not read whole (it stops reading, says why, exits 0)', async () => {
    await ensureBuilt();
    const child = spawn(process.execPath, [MCP_BUNDLE, ...CLAUDE_HOOK_ARGS], { stdio: ['pipe', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Offer eight times the cap, a MiB at a time; the hook must stop taking it well before the end.
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    const closed = new Promise<void>((resolve) => child.stdin.on('error', () => resolve()).on('close', () => resolve()));
    let open = true;
    void closed.then(() => (open = false));
    while (open && written < 8 * MAX_EVENT_BYTES) {
      const flushed = child.stdin.write(piece);
      written += piece.length;
      if (!flushed) await Promise.race([new Promise((resolve) => child.stdin.once('drain', resolve)), closed]);
    }
    if (open) child.stdin.end();
    assert.equal(await exited, 0, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /hook: the event on stdin is over 8(\.0)? MiB; ignored/);
    assert.ok(written < 8 * MAX_EVENT_BYTES, `the hook read all ${written} bytes offered`);
  });

  it('dist/mcp.js hook: the JSON Claude Code reads on stdout, or nothing (exit 0, a line on stderr) for anything wrong', async () => {
    await ensureBuilt();
    const run = (input: string, args: string[] = [...CLAUDE_HOOK_ARGS]) =>
      // TMPDIR: a run folder where no server is announced (another test's server must not retain this output).
      spawnSync(process.execPath, [MCP_BUNDLE, ...args], {
        input,
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_CONFIG_DIR: config, TMPDIR: dirs.make() },
      });
    const good = run(JSON.stringify(bashEvent({ persistedOutputPath: saved, persistedOutputSize: size })));
    assert.equal(good.status, 0, good.stderr);
    const output = JSON.parse(good.stdout);
    assert.deepEqual(Object.keys(output), ['hookSpecificOutput']);
    assert.equal(output.hookSpecificOutput.hookEventName, 'PostToolUse');
    assert.match(output.hookSpecificOutput.additionalContext, /checksum=5f00d1/);
    for (const [input, args, why] of [
      [JSON.stringify(bashEvent({})), undefined, /^$/],
      ['not json', undefined, /hook: .*JSON/],
      [JSON.stringify(bashEvent({ persistedOutputPath: '/etc/passwd' })), undefined, /hook: .*outside the workspace folders/],
      ['{}', ['hook', 'other'], /hook: unknown hook "other"/],
    ] as const) {
      const bad = run(input, args ? [...args] : undefined);
      assert.equal(bad.status, 0, input);
      assert.equal(bad.stdout, '', input);
      assert.match(bad.stderr.trim(), why, input);
    }
  });
});
