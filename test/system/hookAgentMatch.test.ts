// Issue 37 §3: a hook hands an output only to a server its own agent process started, for the
// workspace it runs in. Before, a hook found any server whose ancestors met its own within 4 hops:
// two agents in two panes of one terminal (or tmux) share that terminal, so the output of an agent
// with no server of its own went into the other project's session. Real processes: this test
// process is the terminal; each pane is `sh -c 'node agent'`; agent A starts a server, agent B runs
// the hook through its shell, as agents do.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { agentOf } from '../../src/mcp/ancestry';
import { announced, geminiEvent, hookEnv } from '../unit/helpers/hooks';
import { waitUntil } from '../unit/helpers/mochaRun';
import { MCP_BUNDLE, ensureBuilt } from '../unit/helpers/mcpServer';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** About 40 KB of output, enough to be retained. */
const OUTPUT = `${Array.from({ length: 4000 }, (_, i) => `line ${i} ok`).join('\n')}\nrelease_checksum=77aa\n`;

/**
 * An agent: with a workspace, it starts our stdio server as its child (kept until the agent's stdin
 * ends); for each line on its stdin (a folder), it runs the hook through its shell in that folder,
 * as agents run hook commands ('; true' keeps the shell between them), and prints what the hook printed as one JSON line.
 */
const AGENT = `
const { spawn, spawnSync } = require('node:child_process');
const [bundle, eventFile, workspace, store] = process.argv.slice(1);
const server = workspace && spawn(process.execPath, [bundle, '--workspace', workspace, '--store', store], { stdio: ['pipe', 'ignore', 'inherit'] });
let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\\n'); end >= 0; end = pending.indexOf('\\n')) {
    const cwd = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const run = spawnSync('sh', ['-c', '"$0" "$1" hook gemini-cli-after-tool < "$2"; true', process.execPath, bundle, eventFile], { cwd, encoding: 'utf8' });
    process.stdout.write(JSON.stringify({ stdout: run.stdout, stderr: run.stderr }) + '\\n');
  }
});
process.stdin.on('end', () => (server ? server.stdin.end() : undefined));
`;

/** A pane: `sh -c 'node -e AGENT …'`, a child of this process (the terminal). */
function pane(args: string[], tmp: string) {
  const child = spawn('sh', ['-c', 'node=$0 code=$1; shift; "$node" -e "$code" "$@"; true', process.execPath, AGENT, ...args], {
    env: { ...process.env, ...hookEnv(tmp) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let [out, err] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  let answered = 0;
  return {
    stderr: () => err,
    /** Has the agent run its hook in `cwd`; what the hook printed. */
    async hookIn(cwd: string): Promise<{ stdout: string; stderr: string }> {
      child.stdin.write(`${cwd}\n`);
      answered += 1;
      await waitUntil('the agent’s hook to finish', () => out.split('\n').length > answered);
      return JSON.parse(out.split('\n')[answered - 1]) as { stdout: string; stderr: string };
    },
    async end(): Promise<void> {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('close', resolve));
    },
  };
}

describe('a hook hands output only to its own agent’s server, for its workspace (issue 37 §3)', function () {
  this.timeout(180_000);
  const dirs = useTempDirs('hook-agent');
  before(ensureBuilt);

  it('the agent is the nearest ancestor that is no shell or npx: the hook’s parent or grandparent, the server’s parent or further through npx', () => {
    const names: Record<number, string> = {
      10: 'sh',
      11: 'gemini',
      12: 'bash',
      13: 'tmux: server',
      20: 'npm exec tool-o',
      21: 'sh',
      22: 'node',
    };
    const nameOf = (pid: number) => names[pid];
    assert.equal(agentOf([11, 12, 13], nameOf), 11, 'run by the agent directly');
    assert.equal(agentOf([10, 11, 12, 13], nameOf), 11, 'through its shell');
    assert.equal(agentOf([20, 21, 22], nameOf), 22, 'a server started through npx and a shell');
    assert.equal(agentOf([10, 12, 21, 10, 11], nameOf), undefined, 'no agent within three wrappers');
    assert.equal(agentOf([99, 11], nameOf), undefined, 'a process whose name cannot be read: not known');
  });

  it('two panes under one terminal: the hook of the agent without a server does not reach the other agent’s server', async () => {
    const tmp = dirs.make();
    const [workspaceA, workspaceB] = [dirs.make(), dirs.make()];
    const eventFile = path.join(dirs.make(), 'event.json');
    writeFileSync(eventFile, JSON.stringify({ ...geminiEvent(OUTPUT), cwd: workspaceB }));
    const a = pane([MCP_BUNDLE, eventFile, workspaceA, dirs.make()], tmp);
    const b = pane([MCP_BUNDLE, eventFile], tmp);
    try {
      await announced(tmp);
      const hook = await b.hookIn(workspaceB);
      assert.equal(hook.stdout, '', 'no context: the output is not retained anywhere');
      assert.match(hook.stderr, /no tool-output-recall-mcp server of this agent is running in this workspace; the output is not retained/);
      // The control: agent A's own hook, in its workspace, reaches its server.
      assert.match((await a.hookIn(workspaceA)).stdout, /outputId \\"out_[0-9a-f]{24}\\"/);
      await waitUntil('server A’s log line', () => /hook: retained/.test(a.stderr()));
      assert.equal(a.stderr().match(/hook: retained/g)?.length, 1, 'server A retained only its own agent’s output');
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('the same agent, another workspace: not retained; its workspace, or a folder in it: retained by its server', async () => {
    const tmp = dirs.make();
    const workspace = dirs.make();
    const inside = path.join(workspace, 'packages', 'app');
    mkdirSync(inside, { recursive: true });
    const eventFile = path.join(dirs.make(), 'event.json');
    writeFileSync(eventFile, JSON.stringify(geminiEvent(OUTPUT)));
    const agent = pane([MCP_BUNDLE, eventFile, workspace, dirs.make()], tmp);
    try {
      await announced(tmp);
      const other = await agent.hookIn(dirs.make());
      assert.equal(other.stdout, '', other.stderr);
      assert.match(other.stderr, /no tool-output-recall-mcp server of this agent is running in this workspace/);
      for (const cwd of [workspace, inside]) assert.match((await agent.hookIn(cwd)).stdout, /outputId \\"out_[0-9a-f]{24}\\"/);
    } finally {
      await agent.end();
    }
  });
});
