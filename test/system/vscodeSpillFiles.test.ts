// VS Code's own oversized results in the Local harness (issue 31): the terminal tool's
// `<cacheHome>/copilot-terminal-output/copilot-terminal-output-<uuid>.txt` and Copilot Chat's
// `<workspace storage>/<id>/GitHub.copilot-chat/chat-session-resources/<session>/<tool call>/content.txt`
// (or content.json and schema.json). The folders come from the front end (`SpillRoots`, computed by
// `vscodeSpillRoots` from the extension's storage); read_file_page and search_tool_output {path} read
// exactly those names at exactly that depth, with every other rule kept. Real files in a temp folder
// laid out as VS Code lays them out.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ReadPolicy } from '../../src/core/files/readablePath';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { isVsCodeSpillFile, vscodeSpillRoots, type SpillRoots } from '../../src/core/files/vscodeSpillFiles';
import { readFilePageText } from '../../src/core/tools/readFilePage';
import { searchFileText } from '../../src/core/tools/searchFile';
import { rejectsWith } from '../unit/helpers/assertions';
import { readablePath } from '../unit/helpers/readable';
import { skipBecause } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

const EXT = 'tool-output-recall.tool-output-recall';
/** A session id and a tool-call id as Copilot Chat's sanitising leaves them. */
const SESSION = '2b7e1c4a-9d3f-4f0e-8a61-5c2d7e9b0f13';
const TOOL_CALL = 'toolu_vrtx_01AbC.d-9';

/** The first match of a search_tool_output result over a file. */
function firstMatch(text: string): { offset: number; lineOffset: number; line: number } {
  const match = text
    .split('\n')
    .map((line) => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : undefined))
    .find((line) => typeof line?.lineOffset === 'number');
  assert.ok(match, `no match in:\n${text.slice(0, 400)}`);
  return match as { offset: number; lineOffset: number; line: number };
}

describe("VS Code's own saved results: the terminal tool's and Copilot Chat's files (read_file_page, search_tool_output {path})", () => {
  describe('vscodeSpillRoots: the folders, from what the extension host knows', () => {
    const globalStorage = path.join(path.sep, 'home', 'u', '.config', 'Code', 'User', 'globalStorage', EXT);
    const workspaceStorage = path.join(path.sep, 'home', 'u', '.config', 'Code', 'User', 'workspaceStorage', '9f1c', EXT);
    const chat = path.join(
      path.sep,
      'home',
      'u',
      '.config',
      'Code',
      'User',
      'workspaceStorage',
      '9f1c',
      'GitHub.copilot-chat',
      'chat-session-resources',
    );

    it('desktop: cacheHome is the user-data folder; Copilot Chat is the sibling of our workspace storage', () => {
      assert.deepEqual(vscodeSpillRoots({ globalStorage, workspaceStorage, web: false, local: true }), {
        terminalOutput: [path.join(path.sep, 'home', 'u', '.config', 'Code', 'copilot-terminal-output')],
        chatSessionResources: [chat],
      });
    });

    it('the web workbench (code-server): cacheHome is <user-data>/User/caches, on the server', () => {
      const user = path.join(path.sep, 'root', '.local', 'share', 'code-server', 'User');
      assert.deepEqual(vscodeSpillRoots({ globalStorage: path.join(user, 'globalStorage', EXT), web: true, local: false }), {
        terminalOutput: [path.join(user, 'caches', 'copilot-terminal-output')],
        chatSessionResources: [],
      });
    });

    it('none where they cannot be exact: a remote desktop window, another storage layout, no storage on disk, an empty window', () => {
      // A remote desktop window: the workbench writes to the desktop's disk, out of this host's reach.
      assert.deepEqual(vscodeSpillRoots({ globalStorage, workspaceStorage, web: false, local: false }).terminalOutput, []);
      for (const other of [
        path.join(path.sep, 'data', 'globalStorage', EXT),
        path.join(path.sep, 'data', 'User', 'storage', EXT),
        'User/globalStorage/x',
      ]) {
        assert.deepEqual(vscodeSpillRoots({ globalStorage: other, web: false, local: true }).terminalOutput, [], other);
      }
      assert.deepEqual(vscodeSpillRoots({ web: true, local: true }), { terminalOutput: [], chatSessionResources: [] });
    });
  });

  describe('the rule, on real files laid out as VS Code lays them out', () => {
    const dirs = useTempDirs('vscode-spills');
    let roots: SpillRoots;
    let policy: ReadPolicy;
    let terminal: string;
    let chat: string;
    let outside: string;
    before(async () => {
      const base = await fs.realpath(dirs.make());
      const userData = path.join(base, 'user-data');
      const ours = path.join(userData, 'User', 'workspaceStorage', '5e0d1f2a3b4c', EXT);
      await fs.mkdir(path.join(userData, 'User', 'globalStorage', EXT), { recursive: true });
      await fs.mkdir(ours, { recursive: true });
      roots = vscodeSpillRoots({
        globalStorage: path.join(userData, 'User', 'globalStorage', EXT),
        workspaceStorage: ours,
        web: false,
        local: true,
      });
      terminal = path.join(userData, 'copilot-terminal-output');
      chat = path.join(userData, 'User', 'workspaceStorage', '5e0d1f2a3b4c', 'GitHub.copilot-chat', 'chat-session-resources');
      assert.deepEqual(roots, { terminalOutput: [terminal], chatSessionResources: [chat] });
      await fs.mkdir(terminal, { recursive: true });
      await fs.mkdir(path.join(chat, SESSION, TOOL_CALL), { recursive: true });
      outside = await fs.realpath(dirs.make());
      const workspace = await fs.realpath(dirs.make());
      policy = { folders: [workspace], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS, spillRoots: roots };
    });

    it("the terminal tool's file: searched, then paged at the match", async () => {
      const file = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.writeFile(file, `${'PASS test/unit/a.test.ts\n'.repeat(4000)}FAIL test/unit/b.test.ts: expected 3\n${'tail\n'.repeat(100)}`);
      assert.equal(await readablePath(file, policy), file);
      const match = firstMatch(await searchFileText({ path: file, pattern: 'FAIL test/' }, policy));
      assert.equal(match.lineOffset, 4000 * 25);
      assert.equal(match.line, 4001);
      const page = await readFilePageText({ path: file, byteOffset: match.lineOffset }, policy);
      assert.match(page, /\n---\nFAIL test\/unit\/b\.test\.ts: expected 3\n/);
    });

    it("Copilot Chat's content.txt, content.json and schema.json: searched and paged", async () => {
      const folder = path.join(chat, SESSION, TOOL_CALL);
      const text = path.join(folder, 'content.txt');
      await fs.writeFile(text, `${'row ok\n'.repeat(3000)}row ERROR disk full\n`);
      assert.match(await readFilePageText({ path: text, line: 3001 }, policy), /row ERROR disk full/);
      const json = path.join(folder, 'content.json');
      await fs.writeFile(
        json,
        JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ id: i, state: i === 321 ? 'broken' : 'fine' })) }, null, 2),
      );
      const match = firstMatch(await searchFileText({ path: json, pattern: '"broken"' }, policy));
      assert.match(await readFilePageText({ path: json, byteOffset: match.lineOffset }, policy), /"state": "broken"/);
      const schema = path.join(folder, 'schema.json');
      await fs.writeFile(schema, '{"type":"object"}');
      assert.equal(await readablePath(schema, policy), schema);
    });

    it('REFUSED: another name in the same folders, the right names one folder deeper or shallower or in the other folder, no roots (MCP)', async () => {
      const refused = async (file: string, note: string) => {
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, 'a result\n');
        const error = await rejectsWith(readablePath(file, policy), 'REFUSED', note);
        assert.match(error.message, /outside the workspace folders/, note);
        await rejectsWith(searchFileText({ path: file, pattern: 'result' }, policy), 'REFUSED', note);
      };
      const uuid = randomUUID();
      await refused(path.join(terminal, 'notes.txt'), 'another name in the terminal folder');
      await refused(path.join(terminal, `copilot-terminal-output-${uuid}.log`), 'another extension');
      await refused(path.join(terminal, `copilot-terminal-output-${uuid.slice(0, 30)}.txt`), 'not a UUID');
      await refused(path.join(terminal, 'sub', `copilot-terminal-output-${uuid}.txt`), 'one folder deeper');
      await refused(path.join(path.dirname(terminal), `copilot-terminal-output-${uuid}.txt`), 'in cacheHome itself');
      await refused(path.join(terminal, 'content.txt'), 'a chat name in the terminal folder');
      await refused(path.join(chat, SESSION, TOOL_CALL, 'other.txt'), 'another name in a tool-call folder');
      await refused(path.join(chat, SESSION, 'content.txt'), 'no tool-call folder');
      await refused(path.join(chat, 'content.txt'), 'no session folder');
      await refused(path.join(chat, SESSION, TOOL_CALL, 'deeper', 'content.txt'), 'one folder deeper');
      await refused(path.join(chat, SESSION, 'a b', 'content.txt'), 'a folder name Copilot Chat never writes');
      await refused(path.join(chat, SESSION, TOOL_CALL, `copilot-terminal-output-${uuid}.txt`), 'a terminal name in the chat folder');
      // The same files, with no roots (the MCP server, which knows none of these folders).
      const good = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.writeFile(good, 'x\n');
      await rejectsWith(readablePath(good, { ...policy, spillRoots: undefined }), 'REFUSED');
      await rejectsWith(readablePath(path.join(chat, SESSION, TOOL_CALL, 'schema.json'), { ...policy, spillRoots: {} }), 'REFUSED');
    });

    it('REFUSED: a link named like one that leads out; a link to one of them is read as the file it is', async () => {
      const secret = path.join(outside, 'notes.txt');
      await fs.writeFile(secret, 'not a saved result\n');
      const link = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.symlink(secret, link);
      const error = await rejectsWith(readablePath(link, policy), 'REFUSED');
      assert.doesNotMatch(error.message, /not a saved result/);
      const chatLink = path.join(chat, SESSION, TOOL_CALL, 'schema.json');
      await fs.rm(chatLink, { force: true });
      await fs.symlink(secret, chatLink);
      await rejectsWith(searchFileText({ path: chatLink, pattern: 'saved' }, policy), 'REFUSED');
      // Reached through a link from elsewhere, the real file is what counts.
      const real = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.writeFile(real, 'through a link\n');
      const alias = path.join(outside, 'alias.txt');
      await fs.symlink(real, alias);
      assert.equal(await readablePath(alias, policy), real);
    });

    it('roots given through a symlink match the real folders', async () => {
      const linked = path.join(outside, 'linked-user-data');
      await fs.symlink(path.dirname(terminal), linked);
      const viaLink: SpillRoots = { terminalOutput: [path.join(linked, 'copilot-terminal-output')] };
      const file = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.writeFile(file, 'x\n');
      assert.equal(await isVsCodeSpillFile(file, viaLink), true);
      assert.equal(await isVsCodeSpillFile(file, { chatSessionResources: viaLink.terminalOutput }), false);
    });

    it('a FIFO named like one is INVALID_ARGUMENT (never opened); a hard link, a sensitive folder REFUSED; secrets masked', async function () {
      if (process.platform === 'win32') skipBecause(this, 'Windows has no FIFOs (mkfifo)');
      const fifo = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      execFileSync('mkfifo', [fifo]);
      const error = await rejectsWith(readablePath(fifo, policy), 'INVALID_ARGUMENT');
      assert.match(error.message, /is a FIFO \(named pipe\)/);

      const credential = path.join(outside, 'credentials');
      await fs.writeFile(credential, 'aws_secret_access_key=S3CR3T\n');
      await fs.mkdir(path.join(chat, SESSION, 'hard'), { recursive: true });
      const hard = path.join(chat, SESSION, 'hard', 'content.txt');
      await fs.link(credential, hard);
      assert.match((await rejectsWith(readablePath(hard, policy), 'REFUSED')).message, /2 names \(hard links\)/);

      // A session folder named .ssh: the name is one Copilot Chat could write, the sensitive rule still applies.
      await fs.mkdir(path.join(chat, '.ssh', 'x'), { recursive: true });
      await fs.writeFile(path.join(chat, '.ssh', 'x', 'content.txt'), 'x\n');
      assert.match(
        (await rejectsWith(readablePath(path.join(chat, '.ssh', 'x', 'content.txt'), policy), 'REFUSED')).message,
        /is a sensitive file/,
      );

      const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
      const env = path.join(terminal, `copilot-terminal-output-${randomUUID()}.txt`);
      await fs.writeFile(env, `$ env\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=${secret}\n`);
      const page = await readFilePageText({ path: env }, policy);
      assert.doesNotMatch(page, /IOSFODNN7EXAMPLE|EXAMPLEKEY/);
      assert.match(page, /masked: 2 secret-shaped values in this page/);
    });
  });
});
