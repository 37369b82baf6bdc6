// The session commands in a real host: new, fork, delete, switch (and resume after a switch closed
// the session), the two-window lock, and the output commands that take an id.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import { RecallError, isRecallError } from '../../src/core/errors';
import type { OpenedStore } from '../../src/core/store/lockedSession';
import type { OutputInfo } from '../../src/core/types';
import { AgentSessions } from '../../src/extension/agents/agentSessions';
import { readSettings } from '../../src/extension/config';
import { SessionManager } from '../../src/extension/sessions/sessionManager';
import { invoke, recallApi, scratchDir, skipBecause, testChannel, waitFor } from './helpers/host';
import { Webview, hasDriver } from './helpers/webview';

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

/**
 * The workbench page itself (not a webview), read through the driver. The harness runs VS Code with
 * its smoke-test driver, which shows no toasts; the notifications are read in the Notifications
 * center, opened for the purpose.
 */
const workbench = new Webview({ selector: '.monaco-workbench' });

/** Waits for a notification of that severity (its codicon) whose text holds `text` (no quotes in it: it goes in a selector). */
async function notification(severity: 'info' | 'warning' | 'error', text: string): Promise<void> {
  await vscode.commands.executeCommand('notifications.showList');
  await workbench.waitFor(`.notifications-center .notification-list-item:has(.codicon-${severity}):has-text("${text}")`);
}

const errorNotifications = (): Promise<number> =>
  workbench.probe<number>('count', '.notifications-center .notification-list-item .codicon-error');

/** This extension's log file (the "Tool Output Recall" channel), under the run's scratch folder. */
function extensionLog(): string {
  const root = process.env.TOR_TEST_SCRATCH;
  assert.ok(root, 'TOR_TEST_SCRATCH is not set (run through scripts/host/run.mjs)');
  const found = (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => path.basename(f) === 'Tool Output Recall.log')
    .map((f) => path.join(root, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  assert.ok(found[0], `no "Tool Output Recall.log" under ${root}`);
  return found[0];
}

/** The log's lines from byte `from` on, once one of them matches `until` (writes reach the file in order). */
async function logLinesUntil(file: string, from: number, until: RegExp): Promise<string[]> {
  let lines: string[] = [];
  await waitFor(`a log line matching ${until}`, () => {
    lines = fs.readFileSync(file).subarray(from).toString('utf8').split('\n');
    return lines.some((line) => until.test(line));
  });
  return lines;
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

    describe('said to a person, in their words (the workbench read through the driver)', () => {
      let previous: string | undefined;
      before(async function () {
        if (!hasDriver())
          skipBecause(
            this,
            "the workbench's notifications are read through scripts/host/run.mjs's driver, which this runner does not provide",
          );
        previous = await api.sessionId();
      });
      beforeEach(() => vscode.commands.executeCommand('notifications.clearAll'));
      after(async () => {
        await vscode.commands.executeCommand('notifications.hideList');
        if (previous && (await api.sessionId()) !== previous) await run('switchSession', previous);
      });

      it('Copy Output ID with nothing chosen says how to choose one: an information, no error notification, no [error] log line', async () => {
        // Nothing to copy: a new session (nothing in the tree), no selection, no inspector open.
        await run('newSession');
        await vscode.commands.executeCommand('toolOutputRecall.outputs.focus');
        await vscode.commands.executeCommand('list.clear');
        const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview);
        await vscode.window.tabGroups.close(tabs);
        const log = extensionLog();
        const from = fs.statSync(log).size;
        await vscode.env.clipboard.writeText('left alone');

        assert.equal(await run('copyOutputId'), undefined);
        await notification('info', 'Select an output in the Retained Outputs view, or open one in the inspector');
        assert.equal(await errorNotifications(), 0, 'no error notification');
        assert.equal(await vscode.env.clipboard.readText(), 'left alone');
        // A later command's line shows the log has been written up to here.
        await run('openOutput', 'out_00000000000000000000cafe');
        const lines = await logLinesUntil(log, from, /toolOutputRecall\.openOutput: NOT_FOUND/);
        assert.deepEqual(
          lines.filter((line) => /\[error\]/.test(line)),
          [],
          'no error in the log',
        );
      });

      it('Open Output by ID with an unknown ID says no retained output has it in the current session; the log keeps the engine’s text', async () => {
        const log = extensionLog();
        const from = fs.statSync(log).size;
        const unknown = 'out_0123456789abcdef0123beef';
        assert.equal(await run('openOutputById', unknown), undefined);
        await notification('warning', `No retained output has the ID ${unknown} in the current session`);
        assert.equal(await errorNotifications(), 0, 'a warning, not an error');
        const lines = await logLinesUntil(log, from, new RegExp(`toolOutputRecall\\.openOutput: NOT_FOUND: .*${unknown}`));
        const line = lines.find((l) => l.includes(unknown))!;
        assert.match(line, /\[info\]/);
        assert.match(line, /Copy the outputId exactly from the tool result/, "the engine's text for a model stays in the log");
      });
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

describe('looking an output ID up never starts a session', function () {
  this.timeout(60_000);
  const UNKNOWN = 'out_0123456789abcdef01234567';
  /** The one output the stores of this suite hold. */
  const KEPT = 'out_00000000000000000000abcd';
  let dir: string;
  let agents: AgentSessions;
  const managers: SessionManager[] = [];
  before(() => {
    dir = scratchDir('lookup');
    agents = new AgentSessions({ folders: () => [], quotaBytes: () => readSettings().sessionQuotaBytes, log: testChannel() });
  });
  after(async () => {
    agents.dispose();
    for (const manager of managers) await manager.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A window's session manager over `sessions`, with the workspace's last session `last`; records every session it opens. */
  function windowWith(sessions: string, last?: string) {
    const state = new Map<string, unknown>(last ? [['toolOutputRecall.lastSession', last]] : []);
    const memento = {
      keys: () => [...state.keys()],
      get: (key: string, fallback?: unknown) => (state.has(key) ? state.get(key) : fallback),
      update: async (key: string, value: unknown) => void state.set(key, value),
    } as vscode.Memento;
    const opened: string[] = [];
    // A store that holds one output (a session's real store runs in a worker, which this test does not need).
    const manager = new SessionManager(
      sessions,
      memento,
      async (options) => {
        const sessionId = options.sessionId ?? 'unnamed';
        opened.push(sessionId);
        const info = async (outputId: string): Promise<OutputInfo> => {
          if (outputId !== KEPT) throw new RecallError('NOT_FOUND', `No retained output "${outputId}" in this session.`);
          return { outputId, createdAt: 0, totalBytes: 1, complete: true, droppedBytes: 0, evicted: false };
        };
        return {
          sessionId,
          file: path.join(sessions, `${sessionId}.sqlite`),
          openReport: {},
          resumed: true,
          info,
          close: async () => undefined,
        } as unknown as OpenedStore;
      },
      readSettings,
      testChannel(),
    );
    managers.push(manager);
    const lookup = (outputId: string) =>
      agents.storeOf(
        outputId,
        () => manager.store(),
        () => manager.existingStore(),
      );
    return { manager, opened, lookup };
  }

  it('with no session yet, an unknown ID is NOT_FOUND, and no session is opened or made', async () => {
    const sessions = path.join(dir, 'fresh');
    const { manager, opened, lookup } = windowWith(sessions);
    await assert.rejects(lookup(UNKNOWN), (error: unknown) => isRecallError(error, 'NOT_FOUND'));
    assert.deepEqual(opened, [], 'no session store was opened');
    assert.equal(manager.sessionId, undefined, 'the window still has no session');
    assert.deepEqual(fs.existsSync(sessions) ? fs.readdirSync(sessions) : [], [], 'no session file, no lock');
  });

  it("the workspace's last session is resumed to look in (as a tool would resume it), and finds what it holds", async () => {
    const sessions = path.join(dir, 'resumed');
    fs.mkdirSync(sessions, { recursive: true });
    fs.writeFileSync(path.join(sessions, 's20260101-000000000001.sqlite'), '');
    const { manager, opened, lookup } = windowWith(sessions, 's20260101-000000000001');
    const store = await lookup(KEPT);
    assert.equal((await store.info(KEPT)).outputId, KEPT);
    assert.deepEqual(opened, ['s20260101-000000000001']);
    assert.equal(manager.sessionId, 's20260101-000000000001');
  });

  it('a last session whose files are gone is not resumed: a lookup would only have started a new one', async () => {
    const { manager, opened, lookup } = windowWith(path.join(dir, 'gone'), 's20260101-000000000002');
    await assert.rejects(lookup(KEPT), (error: unknown) => isRecallError(error, 'NOT_FOUND'));
    assert.deepEqual(opened, []);
    assert.equal(manager.sessionId, undefined);
  });
});
