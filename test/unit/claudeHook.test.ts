// Claude Code's PostToolUse hook: the entry "Connect Other Agents…" merges into the workspace's
// .claude/settings.json (other keys and hooks kept, a malformed file reported), and what the hook
// (`node dist/mcp.js hook claude-code-post-tool-use`) prints for a Bash output Claude Code saved to
// its tool-results folder: real files, read in process. The real built server as a child process:
// test/system/claudeHook.test.ts.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { agentTargets } from '../../src/core/agents/agents';
import { CLAUDE_HOOK_ARGS, claudeHookCommand, claudeHookEntry, mergeClaudeHook } from '../../src/core/agents/claudeHook';
import type { ConfigMerge } from '../../src/core/agents/merge';
import { planFiles, writePlanned } from '../../src/core/agents/plan';
import { CONTEXT_BYTES, savedOutputContext } from '../../src/mcp/hook';

/** These tests read the file path the hook gives with no server of the agent running (hooks.test.ts covers the server). */
const noServer = (): Promise<undefined> => Promise.resolve(undefined);
import { rejectsWith } from './helpers/assertions';
import { bashEvent, writeSavedOutput } from './helpers/claudeHook';
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
  let saved: string;
  let size: number;
  before(async () => {
    ({ saved, size } = await writeSavedOutput(claude.results()));
  });

  it('a saved output: its path and size, the calls that read it, the notable lines past the preview and the last lines, in ≤ 4 KB', async () => {
    const context = await savedOutputContext(bashEvent({ persistedOutputPath: saved, persistedOutputSize: size }), noServer);
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
    const context = await savedOutputContext(bashEvent({ persistedOutputPath: saved, persistedOutputSize: size * 30 }), noServer);
    assert.ok(context?.includes(`its first ${size} of ${size * 30} bytes: Claude Code saved no more`));
  });

  it('nothing when the output was not saved; REFUSED for a path the read tools would not read', async () => {
    assert.equal(await savedOutputContext(bashEvent({})), undefined);
    assert.equal(await savedOutputContext({ tool_name: 'Read', tool_response: 'text' as never }), undefined);
    const elsewhere = path.join(dirs.make(), 'bknx531nw.txt');
    await fs.writeFile(elsewhere, 'x');
    await rejectsWith(savedOutputContext(bashEvent({ persistedOutputPath: elsewhere }), noServer), 'REFUSED');
  });

  it('takes no workspace from the event\'s cwd: with "cwd": "/" (or the file\'s own folder) a file outside Claude Code\'s tool-results is REFUSED', async () => {
    const outside = path.join(dirs.make(), 'notes.txt');
    await fs.writeFile(outside, `${'x'.repeat(3000)}\nplain text anyone could want\n`);
    for (const cwd of ['/', path.dirname(outside)]) {
      await rejectsWith(savedOutputContext({ ...bashEvent({ persistedOutputPath: outside }), cwd }, noServer), 'REFUSED');
    }
  });
});
