// The session commands in a real host: new, fork, delete, switch (and resume after a switch closed
// the session), the two-window lock, and the output commands that take an id.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import { invoke, recallApi, waitFor } from './helpers/host';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

/** Whether read_tool_output resolves the id in the current session (NOT_FOUND otherwise). */
async function readable(outputId: string): Promise<boolean> {
  try {
    await invoke('read_tool_output', { outputId, maxBytes: 16 });
    return true;
  } catch (error) {
    assert.match(String(error), /NOT_FOUND/);
    return false;
  }
}

/** The folder holding the session files: `<storageUri>/sessions`, found by the current session's lock. */
function sessionsDir(sessionId: string): string {
  const root = process.env.TOR_TEST_SCRATCH;
  assert.ok(root, 'TOR_TEST_SCRATCH is not set (run through scripts/host/run.mjs)');
  const lock = `${sessionId}.sqlite.lock`;
  const found = (fs.readdirSync(root, { recursive: true }) as string[]).find((f) => path.basename(f) === lock);
  assert.ok(found, `no ${lock} under ${root}`);
  return path.dirname(path.join(root, found));
}

describe('sessions', function () {
  this.timeout(60_000);
  let api: ToolOutputRecallApi;
  let dir: string;
  const retainHere = async (text: string) => (await api.retain(text, { tool: 'sessions-test', title: text })).outputId;

  before(async () => {
    api = await recallApi();
    dir = sessionsDir(await api.sessionId());
  });

  it('newSession: outputs of the previous session stop resolving; switching back resumes it', async () => {
    const a = await api.sessionId();
    const kept = await retainHere('kept in session A');
    const b = await run<string>('newSession');
    assert.ok(b && b !== a, `new session ${b}`);
    assert.equal(await api.sessionId(), b);
    assert.equal(await readable(kept), false);

    // Switching closed A; switching back reopens it from its file.
    assert.equal(await run('switchSession', a), a);
    assert.equal(await api.sessionId(), a);
    assert.equal((await api.read(kept)).text, 'kept in session A');
  });

  it('forkSession: a new session that shares no outputs with its parent', async () => {
    const parent = await api.sessionId();
    const before = await retainHere('before the fork');
    const fork = await run<string>('forkSession');
    assert.ok(fork && fork !== parent);
    assert.equal(await readable(before), false);
    const after = await retainHere('after the fork');
    assert.equal(await readable(after), true);
    assert.equal(await run('switchSession', parent), parent);
    assert.equal(await readable(before), true);
    assert.equal(await readable(after), false);
  });

  it('deleteSession { confirm: false }: removes the file, its ids stop resolving, a new session starts', async () => {
    const doomed = await run<string>('newSession');
    const id = await retainHere('in a session about to be deleted');
    await waitFor('the session file', () => fs.existsSync(path.join(dir, `${doomed}.sqlite`)));
    const next = await run<string>('deleteSession', { confirm: false });
    assert.ok(next && next !== doomed);
    assert.equal(await api.sessionId(), next);
    assert.equal(fs.existsSync(path.join(dir, `${doomed}.sqlite`)), false);
    assert.equal(fs.existsSync(path.join(dir, `${doomed}.sqlite.lock`)), false);
    assert.equal(await readable(id), false);
  });

  describe('a session open in another window', () => {
    let other: ChildProcess | undefined;
    after(() => {
      other?.kill('SIGKILL');
    });

    it('is not switched to while that window lives, and is once it is gone', async () => {
      const locked = await api.sessionId();
      const id = await retainHere('held by another window later');
      const mine = await run<string>('newSession');
      const lockFile = path.join(dir, `${locked}.sqlite.lock`);
      assert.equal(fs.existsSync(lockFile), false, 'leaving a session releases its lock');

      // Another window: a live process holding the lock in the format of src/core/store/sessionLock.ts.
      const script = `const fs = require('fs'), os = require('os');
        fs.writeFileSync(process.argv[1], JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now() }), { flag: 'wx' });
        process.stdout.write('locked\\n');
        setInterval(() => {}, 60000);`;
      other = spawn(process.execPath, ['-e', script, lockFile], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      });
      const child = other;
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
        child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
      });

      assert.equal(await run('switchSession', locked), undefined, 'the command refuses (and shows why)');
      assert.equal(await api.sessionId(), mine, 'this window keeps its session');
      assert.equal(await readable(id), false);
      assert.ok(fs.existsSync(lockFile), 'the other window keeps its lock');

      // The other window dies without releasing: the lock is stale and is taken over.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      other = undefined;
      assert.equal(await run('switchSession', locked), locked);
      assert.equal((await api.read(id)).text, 'held by another window later');
      const owner = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { pid: number };
      assert.equal(owner.pid, process.pid, "the lock is now this window's");
    });
  });

  describe('output commands that take an id', () => {
    let outputId: string;
    before(async () => {
      outputId = await retainHere('an output for the commands');
    });
    after(async () => {
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
      await vscode.window.tabGroups.close(tabs);
    });

    it('openOutputById opens the inspector on it', async () => {
      assert.equal(await run('openOutputById', outputId), true);
      await waitFor('an inspector tab', () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('toolOutputRecall.inspector')),
      );
      assert.equal(await run('openOutputById', 'out_0123456789abcdef01234567'), undefined, 'an unknown id opens nothing');
    });

    it('copyOutputId puts the id on the clipboard', async () => {
      await vscode.env.clipboard.writeText('something else');
      await run('copyOutputId', outputId);
      assert.equal(await vscode.env.clipboard.readText(), outputId);
    });

    it("showLog shows the extension's log", async () => {
      await run('showLog');
      await waitFor(
        'the log document',
        () =>
          vscode.workspace.textDocuments.some(
            (d) => d.uri.scheme === 'output' && /Tool Output Recall/.test(decodeURIComponent(d.uri.toString())),
          ),
        3000,
      );
    });
  });
});
