// VS Code's own oversized results in the Local harness (issue 31), in a real host: files placed exactly
// where this host's VS Code puts them, read through vscode.lm.invokeTool as a model calls the tools.
// The places are found from the running host, not from the extension's own computation
// (src/core/files/vscodeSpillFiles.ts):
//   - the user-data folder is the `--user-data-dir` the server (or desktop VS Code) was started with,
//     read from the command lines of the extension host's ancestors; the workbench's cacheHome is that
//     folder on the desktop and `<it>/User/caches` in VS Code for the web (code-server), so the
//     terminal tool writes `<cacheHome>/copilot-terminal-output/copilot-terminal-output-<uuid>.txt`;
//   - the workspace's storage folder is the one under `<user-data>/User/workspaceStorage` where the
//     host put this extension's own storage, and Copilot Chat's is its sibling named by Copilot
//     Chat's extension id: `…/GitHub.copilot-chat/chat-session-resources/<session>/<call>/content.txt`.
// Another name in the same folders stays refused.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { openReadOnlySession } from '../../src/core/store/readOnlySession';
import { STORE_ENGINES } from '../../src/core/workers/stores';
import type { OutputInfo } from '../../src/core/types';
import { EXTENSION_ID, firstLineJson, invoke, invokeError, recallApi, waitFor, workspaceDir } from './helpers/host';
import { testLog } from './log';

/** `--user-data-dir` from the command line of this process's nearest ancestor that has one (Linux /proc), if any. */
function userDataDirOfHost(): string | undefined {
  let pid = process.pid;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    let args: string[];
    let stat: string;
    try {
      args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return undefined;
    }
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '--user-data-dir' && args[i + 1]) return path.resolve(args[i + 1]);
      if (args[i].startsWith('--user-data-dir=')) return path.resolve(args[i].slice('--user-data-dir='.length));
    }
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return undefined;
}

/** The one folder under `<user-data>/User/workspaceStorage` that holds this extension's storage. */
function workspaceStorageOf(userData: string): string {
  const home = path.join(userData, 'User', 'workspaceStorage');
  const holders = fs
    .readdirSync(home)
    .map((id) => path.join(home, id))
    .filter((dir) => fs.existsSync(path.join(dir, EXTENSION_ID)));
  assert.equal(holders.length, 1, `one workspace storage folder under ${home} with ${EXTENSION_ID}: ${holders.join(', ')}`);
  return holders[0];
}

interface FileMatch {
  offset: number;
  lineOffset: number;
  line: number;
  text: string;
}

/** The matches of a search_tool_output result over a file (summary line, then one JSON line per match). */
function matchesOf(text: string): FileMatch[] {
  const { matches } = firstLineJson<{ matches: number }>(text);
  return text
    .split('\n')
    .slice(1, 1 + matches)
    .map((line) => JSON.parse(line) as FileMatch);
}

describe("Local harness: VS Code's own saved results (the terminal tool's and Copilot Chat's files), read in place", function () {
  this.timeout(120_000);
  let terminalFolder: string;
  let chatFolder: string;
  let sessionsFolder: string;
  /** Files and folders this suite made, removed afterwards (never a folder the host made). */
  const made: string[] = [];
  const mkdirOwn = (dir: string): void => {
    const first = fs.mkdirSync(dir, { recursive: true });
    if (first) made.push(first);
  };

  before(async () => {
    const api = await recallApi();
    await api.sessionId(); // the session store lives in this extension's workspace storage: the host creates it
    assert.notEqual(
      vscode.workspace.getConfiguration('toolOutputRecall').get('readFilePage.allowOutsideWorkspace'),
      true,
      'these tests need files outside the workspace refused (the default)',
    );
    const fromHost = userDataDirOfHost();
    // Without /proc: the folder the harness gives the host (scripts/host/run.mjs, electron.mjs).
    const userData = fromHost ?? (process.env.TOR_TEST_SCRATCH && path.join(process.env.TOR_TEST_SCRATCH, 'user-data'));
    assert.ok(userData && fs.existsSync(path.join(userData, 'User')), `the host's user-data folder (${String(userData)})`);
    testLog(`    user-data folder ${userData} (${fromHost ? "from the host's --user-data-dir" : 'from TOR_TEST_SCRATCH'})`);
    const web = vscode.env.uiKind === vscode.UIKind.Web;
    const cacheHome = web ? path.join(userData, 'User', 'caches') : userData;
    terminalFolder = path.join(cacheHome, 'copilot-terminal-output');
    const copilotId = vscode.extensions.all.find((e) => e.id.toLowerCase() === 'github.copilot-chat')?.id ?? 'GitHub.copilot-chat';
    chatFolder = path.join(workspaceStorageOf(userData), copilotId, 'chat-session-resources');
    sessionsFolder = path.join(workspaceStorageOf(userData), EXTENSION_ID, 'sessions');
    const workspace = fs.realpathSync(workspaceDir());
    for (const folder of [terminalFolder, chatFolder])
      assert.ok(!folder.startsWith(workspace + path.sep), `${folder} lies outside the workspace`);
    testLog(`    ${web ? 'web' : 'desktop'} workbench; terminal output in ${terminalFolder}; Copilot Chat's results in ${chatFolder}`);
    mkdirOwn(terminalFolder);
    mkdirOwn(chatFolder);
  });

  after(() => {
    for (const file of made.reverse()) fs.rmSync(file, { recursive: true, force: true });
  });

  it("the terminal tool's copilot-terminal-output-<uuid>.txt: search_tool_output finds a line, read_file_page reads from its offset", async () => {
    const file = path.join(terminalFolder, `copilot-terminal-output-${randomUUID()}.txt`);
    made.push(file);
    const passing = 'PASS  src/app/routes.test.ts (412 ms)\n'.repeat(6000); // far over the tool's 20,000 characters
    const failing = 'FAIL  src/app/billing.test.ts: expected 3 invoices, got 2\n';
    fs.writeFileSync(file, `${passing}${failing}${'Tests: 1 failed, 6000 passed\n'}`);
    const searched = await invoke('search_tool_output', { path: file, pattern: 'FAIL ' });
    const [match] = matchesOf(searched.text);
    assert.ok(match, searched.text.slice(0, 500));
    assert.equal(match.lineOffset, Buffer.byteLength(passing));
    assert.equal(match.line, 6001);
    const { text } = await invoke('read_file_page', { path: file, byteOffset: match.lineOffset });
    assert.ok(text.includes(`\n---\n${failing}`), text.slice(0, 500));
  });

  it("Copilot Chat's chat-session-resources/<session>/<call>/content.txt and content.json: searched and paged", async () => {
    const call = path.join(chatFolder, randomUUID(), `toolu_vrtx_${randomUUID().slice(0, 8)}__vscode-1`);
    mkdirOwn(call);
    const content = path.join(call, 'content.txt');
    fs.writeFileSync(content, `${'resolved 1 package\n'.repeat(900)}npm error ERESOLVE could not resolve peer react@19\n`);
    const [match] = matchesOf((await invoke('search_tool_output', { path: content, pattern: 'ERESOLVE' })).text);
    assert.equal(match?.line, 901);
    assert.match((await invoke('read_file_page', { path: content, line: 901 })).text, /npm error ERESOLVE could not resolve peer react@19/);
    const json = path.join(call, 'content.json');
    fs.writeFileSync(
      json,
      JSON.stringify({ issues: Array.from({ length: 400 }, (_, i) => ({ n: i, title: i === 377 ? 'Crash on save' : 'ok' })) }, null, 2),
    );
    const [found] = matchesOf((await invoke('search_tool_output', { path: json, pattern: 'Crash on save' })).text);
    assert.ok(found, 'the JSON result is searched');
    assert.match(
      (await invoke('read_file_page', { path: json, byteOffset: found.lineOffset, maxBytes: 64 })).text,
      /"title": "Crash on save"/,
    );
  });

  /**
   * The current session's output kept from `file`, once the extension has retained it: found in the
   * session file (read as another window would), then waited for in the extension's own store until
   * it resolves there. The store writes a copy's journal record (and waits for its fsync) before the
   * copy enters its index and its retain resolves, and serves reads meanwhile; a reader of the files
   * sees the record at once, so under load the ID it finds could still be NOT_FOUND through the API
   * for the length of an fsync (failed once with two CI runs at once, load 8-10).
   */
  async function keptFrom(file: string): Promise<OutputInfo> {
    const api = await recallApi();
    const sessionFile = path.join(sessionsFolder, `${await api.sessionId()}.sqlite`);
    let kept: OutputInfo | undefined;
    await waitFor(`a retained copy of ${file} in ${sessionFile}`, async () => {
      const session = await openReadOnlySession(sessionFile, STORE_ENGINES);
      try {
        kept = (await session.list()).find((output) => output.extra?.savedFile === file);
      } finally {
        await session.close();
      }
      return kept !== undefined;
    });
    const { outputId } = kept!;
    await waitFor(`${outputId} (kept from ${file}) to resolve through the extension's API once its retain has finished`, async () => {
      try {
        await api.read(outputId, 0, 1);
        return true;
      } catch (error) {
        if ((error as { code?: unknown }).code === 'NOT_FOUND') return false;
        throw error;
      }
    });
    return kept!;
  }

  /** The whole retained copy, paged through the extension's API. */
  async function copyOf(outputId: string): Promise<Buffer> {
    const api = await recallApi();
    const parts: Buffer[] = [];
    for (let offset = 0, more = true; more;) {
      const page = await api.read(outputId, offset, 4096);
      parts.push(Buffer.from(page.text, 'utf8'));
      offset = page.nextOffset;
      more = page.hasMore;
    }
    return Buffer.concat(parts);
  }

  it('keeps each terminal output file in the session as it appears (VS Code deletes it when the chat ends): the same bytes (secrets masked), or past the copy cap its head and tail', async () => {
    const small = path.join(terminalFolder, `copilot-terminal-output-${randomUUID()}.txt`);
    made.push(small);
    const text = `${'✓ compiled module ünïcode\n'.repeat(9000)}ERROR: build failed at step 7\n`;
    fs.writeFileSync(small, text);
    const kept = await keptFrom(small);
    assert.equal(kept.tool, 'run_in_terminal');
    assert.equal(kept.complete, true);
    assert.equal(kept.totalBytes, Buffer.byteLength(text));
    assert.ok((await copyOf(kept.outputId)).equals(Buffer.from(text)), 'the copy is the file, byte for byte');
    fs.rmSync(small); // as VS Code does when the chat session ends: the copy stays
    assert.equal((await (await recallApi()).read(kept.outputId, 0, 64)).text.slice(0, 17), '✓ compiled module');

    // Masked as read_file_page masks the same file (issue 37 §7): the token's bytes are '*', every offset unchanged.
    const token = `ghp_${'k7Q'.repeat(12)}`;
    const secret = path.join(terminalFolder, `copilot-terminal-output-${randomUUID()}.txt`);
    made.push(secret);
    const withToken = `$ gh auth status\n  Token: ${token}\n${'ok\n'.repeat(10_000)}`;
    fs.writeFileSync(secret, withToken);
    const masked = await copyOf((await keptFrom(secret)).outputId);
    assert.equal(masked.length, Buffer.byteLength(withToken));
    assert.ok(masked.toString('utf8').startsWith(`$ gh auth status\n  Token: ghp_${'*'.repeat(36)}\n`), masked.subarray(0, 80).toString());

    const copyBytes = vscode.workspace.getConfiguration('toolOutputRecall').get<number>('copyBytes')!;
    const big = path.join(terminalFolder, `copilot-terminal-output-${randomUUID()}.txt`);
    made.push(big);
    const line = 'é'.repeat(63) + '\n'; // 127 bytes: the cap's halves fall inside a character
    const lines = Math.ceil((copyBytes + 1_000_000) / Buffer.byteLength(line));
    const whole = Buffer.from(`FIRST LINE\n${line.repeat(lines)}LAST LINE\n`);
    fs.writeFileSync(big, whole);
    const cut = await keptFrom(big);
    assert.equal(cut.complete, false);
    assert.ok(cut.totalBytes <= copyBytes, `${cut.totalBytes} ≤ ${copyBytes}`);
    assert.equal(cut.totalBytes + cut.droppedBytes, whole.length, 'the dropped bytes are counted');
    const copy = await copyOf(cut.outputId);
    assert.equal(copy.length, cut.totalBytes);
    assert.ok(copy.toString('utf8').startsWith('FIRST LINE\n') && copy.toString('utf8').endsWith('LAST LINE\n'));
    assert.ok(!copy.toString('utf8').includes('\ufffd'), 'no character split at the cut');
  });

  it('another name in the same folders is REFUSED (and a chat result one folder too shallow)', async () => {
    const session = path.join(chatFolder, randomUUID());
    const call = path.join(session, 'call_1');
    mkdirOwn(call);
    const others = [
      path.join(terminalFolder, 'notes.txt'),
      path.join(terminalFolder, `copilot-terminal-output-${randomUUID()}.log`),
      path.join(call, 'other.txt'),
      path.join(session, 'content.txt'),
    ];
    for (const file of others) {
      made.push(file);
      fs.writeFileSync(file, 'SECRET-ELSEWHERE-7 not a saved result\n');
      const searched = await invokeError('search_tool_output', { path: file, pattern: 'SECRET' });
      assert.match(searched, /search_tool_output failed \(REFUSED\): .*outside the workspace folders/, file);
      const read = await invokeError('read_file_page', { path: file });
      assert.match(read, /read_file_page failed \(REFUSED\): .*outside the workspace folders/, file);
      for (const message of [searched, read]) assert.ok(!message.includes('SECRET-ELSEWHERE-7'), 'the refusal does not leak the content');
    }
  });
});
