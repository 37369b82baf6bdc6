// Claude Code's PostToolUse hook: the entry "Connect Other Agents…" merges into the workspace's
// .claude/settings.json (other keys and hooks kept, a malformed file reported), and what the hook
// (`node dist/mcp.js hook claude-code-post-tool-use`) prints for a Bash output Claude Code saved to
// its tool-results folder: real files, the real built server as a child process.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { agentTargets } from '../../src/core/agents/agents';
import { CLAUDE_HOOK_ARGS, claudeHookCommand, claudeHookEntry, mergeClaudeHook } from '../../src/core/agents/claudeHook';
import type { ConfigMerge } from '../../src/core/agents/merge';
import { planFiles, writePlanned } from '../../src/core/agents/plan';
import { CONTEXT_BYTES, MAX_EVENT_BYTES, savedOutputContext } from '../../src/mcp/hook';

/** These tests read the file path the hook gives with no server of the agent running (hooks.test.ts covers the server). */
const noServer = (): Promise<undefined> => Promise.resolve(undefined);
import { rejectsWith } from './helpers/assertions';
import { MCP_BUNDLE, ensureBuilt } from './helpers/mcpServer';
import { useClaudeResults } from './helpers/readable';
import { useTempDirs } from './helpers/tempDirs';

const ENTRY = claudeHookEntry(claudeHookCommand('node', '/home/u/.state/mcp/tool-output-recall-mcp.js'));

function ok(merge: ConfigMerge): Extract<ConfigMerge, { ok: true }> {
  assert.ok(merge.ok, `expected a merge, got: ${merge.ok ? '' : merge.problem}`);
  return merge;
}

describe('Claude Code hook: .claude/settings.json (mergeClaudeHook)', () => {
  it('creates the file with one PostToolUse entry for Bash running the launcher with the hook arguments', () => {
    const merge = ok(mergeClaudeHook(undefined, ENTRY));
    assert.equal(merge.change, 'create');
    assert.deepEqual(JSON.parse(merge.text), {
      hooks: {
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: 'node /home/u/.state/mcp/tool-output-recall-mcp.js hook claude-code-post-tool-use' }],
          },
        ],
      },
    });
    // A launcher path with a space or a quote is one shell word.
    assert.equal(claudeHookCommand('node', "/home/o'k dir/l.js"), `node '/home/o'\\''k dir/l.js' ${CLAUDE_HOOK_ARGS.join(' ')}`);
  });

  it('keeps the other keys, events and PostToolUse hooks, in place; replaces only its own; unchanged when equal', () => {
    const mine = { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write' }] };
    const existing = `${JSON.stringify(
      {
        permissions: { allow: ['Bash(ls)'] },
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }], PostToolUse: [mine] },
      },
      null,
      4,
    )}\n`;
    const added = ok(mergeClaudeHook(existing, ENTRY));
    assert.equal(added.change, 'add');
    assert.deepEqual(added.others, ['Stop', 'PostToolUse Edit|Write']);
    const parsed = JSON.parse(added.text);
    assert.deepEqual(parsed.permissions, { allow: ['Bash(ls)'] });
    assert.deepEqual(parsed.hooks.PostToolUse, [mine, ENTRY]);
    assert.deepEqual(Object.keys(parsed.hooks), ['Stop', 'PostToolUse']);
    assert.match(added.text, /^ {4}"permissions"/m, 'indentation kept');
    // An older launcher's entry is ours too: replaced where it stands.
    const old = added.text.replace('/home/u/.state/mcp/tool-output-recall-mcp.js', '/old/launcher.js');
    const replaced = ok(mergeClaudeHook(old, ENTRY));
    assert.equal(replaced.change, 'replace');
    assert.deepEqual(JSON.parse(replaced.text).hooks.PostToolUse, [mine, ENTRY]);
    const again = ok(mergeClaudeHook(replaced.text, ENTRY));
    assert.equal(again.change, 'unchanged');
    assert.equal(again.text, replaced.text);
  });

  it('reports a malformed file with the reason, never offering a text for it', () => {
    for (const [text, problem] of [
      ['{ "hooks": { // x\n } }', /^it is not valid JSON \(.+\)$/],
      ['[1]', /^it is JSON, but not an object/],
      ['{"hooks": []}', /^"hooks" in it is not an object$/],
      ['{"hooks": {"PostToolUse": {}}}', /^"hooks\.PostToolUse" in it is not a list$/],
    ] as const) {
      const merge = mergeClaudeHook(text, ENTRY);
      assert.ok(!merge.ok, text);
      assert.match(merge.problem, problem);
    }
  });

  it("Connect Other Agents plans both of Claude Code's files, and leaves a malformed settings.json as it is", async () => {
    const workspace = await fs.realpath(useTempDirs('claude-hook-plan').make());
    const launch = { node: 'node', launcher: '/l/tool-output-recall-mcp.js', workspace };
    const targets = agentTargets('claude-code', launch);
    assert.deepEqual(
      targets.map((t) => [t.file, t.format]),
      [
        [path.join(workspace, '.mcp.json'), 'json'],
        [path.join(workspace, '.claude', 'settings.json'), 'claude-hook'],
      ],
    );
    assert.equal(agentTargets('codex', launch).length, 1);
    const settings = path.join(workspace, '.claude', 'settings.json');
    const planned = await planFiles(targets);
    assert.match(planned[1].diff, /\+ +"matcher": "Bash"/);
    const written = await writePlanned(planned);
    assert.deepEqual(
      written.map((w) => w.outcome),
      ['written', 'written'],
    );
    assert.deepEqual(
      JSON.parse(await fs.readFile(settings, 'utf8')).hooks.PostToolUse[0].hooks[0].command,
      `node /l/tool-output-recall-mcp.js ${CLAUDE_HOOK_ARGS.join(' ')}`,
    );
    await fs.writeFile(settings, '{ "hooks": ');
    const again = await writePlanned(await planFiles(targets));
    assert.deepEqual(again[1], {
      file: settings,
      agent: 'Claude Code',
      outcome: 'skipped',
      why: again[1].outcome === 'skipped' ? again[1].why : '',
    });
    assert.match(again[1].outcome === 'skipped' ? again[1].why : '', /^it is not valid JSON/);
    assert.equal(await fs.readFile(settings, 'utf8'), '{ "hooks": ', 'not overwritten');
  });
});

describe('Claude Code hook: what it tells the model (hook claude-code-post-tool-use)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('claude-hook');
  const claude = useClaudeResults(() => dirs.make());
  let config: string;
  let saved: string;
  let size: number;
  before(async () => {
    config = claude.config();
    const results = claude.results();
    saved = path.join(results, 'bknx531nw.txt');
    const filler = `${'y'.repeat(90)}\n`;
    const body = [
      filler.repeat(15_000),
      'ERROR: disk quota exceeded on /var/data\n',
      filler.repeat(15_000),
      'Tests: 3 failed, 97 passed\n',
    ];
    await fs.writeFile(saved, `${body.join('')}${'z'.repeat(40)}\nchecksum=5f00d1\n`);
    size = (await fs.stat(saved)).size;
  });

  const event = (response: Record<string, unknown>): Record<string, unknown> => ({
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    cwd: '/w/proj',
    tool_input: { command: 'make test' },
    tool_response: { stdout: 'y'.repeat(30_000), stderr: '', interrupted: false, ...response },
  });

  it('a saved output: its path and size, the calls that read it, the notable lines past the preview and the last lines, in ≤ 4 KB', async () => {
    const context = await savedOutputContext(event({ persistedOutputPath: saved, persistedOutputSize: size }), noServer);
    assert.ok(context);
    assert.ok(Buffer.byteLength(context) <= CONTEXT_BYTES, `${Buffer.byteLength(context)} bytes`);
    assert.ok(context.includes(`saved to ${saved} (${size} bytes, the complete output`), context);
    assert.ok(context.includes(`search_tool_output {"path": ${JSON.stringify(saved)}, "pattern": "…"}`));
    assert.ok(context.includes(`read_file_page {"path": ${JSON.stringify(saved)}, "byteOffset": N}`));
    assert.match(context, /error line 15001: ERROR: disk quota exceeded on \/var\/data/);
    assert.match(context, /summary line 30002: Tests: 3 failed, 97 passed/);
    assert.match(context, /checksum=5f00d1$/);
  });

  it('a file Claude Code cut at its persist limit is said to be partial', async () => {
    const context = await savedOutputContext(event({ persistedOutputPath: saved, persistedOutputSize: size * 30 }), noServer);
    assert.ok(context?.includes(`its first ${size} of ${size * 30} bytes: Claude Code saved no more`));
  });

  it('nothing when the output was not saved; REFUSED for a path the read tools would not read', async () => {
    assert.equal(await savedOutputContext(event({})), undefined);
    assert.equal(await savedOutputContext({ tool_name: 'Read', tool_response: 'text' as never }), undefined);
    const elsewhere = path.join(dirs.make(), 'bknx531nw.txt');
    await fs.writeFile(elsewhere, 'x');
    await rejectsWith(savedOutputContext(event({ persistedOutputPath: elsewhere }), noServer), 'REFUSED');
  });

  it('takes no workspace from the event\'s cwd: with "cwd": "/" (or the file\'s own folder) a file outside Claude Code\'s tool-results is REFUSED', async () => {
    const outside = path.join(dirs.make(), 'notes.txt');
    await fs.writeFile(outside, `${'x'.repeat(3000)}\nplain text anyone could want\n`);
    for (const cwd of ['/', path.dirname(outside)]) {
      await rejectsWith(
        savedOutputContext({ ...event({ persistedOutputPath: outside }), cwd } as Parameters<typeof savedOutputContext>[0], noServer),
        'REFUSED',
      );
    }
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
    const good = run(JSON.stringify(event({ persistedOutputPath: saved, persistedOutputSize: size })));
    assert.equal(good.status, 0, good.stderr);
    const output = JSON.parse(good.stdout);
    assert.deepEqual(Object.keys(output), ['hookSpecificOutput']);
    assert.equal(output.hookSpecificOutput.hookEventName, 'PostToolUse');
    assert.match(output.hookSpecificOutput.additionalContext, /checksum=5f00d1/);
    for (const [input, args, why] of [
      [JSON.stringify(event({})), undefined, /^$/],
      ['not json', undefined, /hook: .*JSON/],
      [JSON.stringify(event({ persistedOutputPath: '/etc/passwd' })), undefined, /hook: .*outside the workspace folders/],
      ['{}', ['hook', 'other'], /hook: unknown hook "other"/],
    ] as const) {
      const bad = run(input, args ? [...args] : undefined);
      assert.equal(bad.status, 0, input);
      assert.equal(bad.stdout, '', input);
      assert.match(bad.stderr.trim(), why, input);
    }
  });
});
