// Issue 21, items 2 to 5, against the tools' own text functions (what the MCP server and the
// extension return): a FIFO cannot wedge the server, a file swapped between the check and the read
// leaks nothing, /proc, /sys and /dev are never read, hard links outside the workspace are refused,
// and secret-shaped values are masked in pages and searches. Issue 28 (b): a hard link inside the
// workspace to a credential in the home folder, or to a private file, is refused; pnpm, bun and
// git hard links still read.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRecallError } from '../../src/core/errors';
import type { ReadPolicy } from '../../src/core/files/readablePath';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { readFilePageText } from '../../src/core/tools/readFilePage';
import { searchFileText } from '../../src/core/tools/searchFile';
import { rejectsWith } from '../unit/helpers/assertions';
import { readablePath, spillName } from '../unit/helpers/readable';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { skipBecause } from '../unit/helpers/mochaRun';

/** In the fake credentials only: a read that returns it read the wrong file. */
const MARKER = 'LEAK-MARKER-51c9e';
const INNOCENT = 'innocent text of a saved tool result\n';
/** `text` as a literal in a RegExp. */
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('file safety (issue 21): FIFOs, swaps, /proc, hard links, secret-shaped values', function () {
  this.timeout(300_000);
  const dirs = useTempDirs('file-safety');
  const cleanup: string[] = [];
  let workspace: string;
  let outside: string;
  let tmp: string;
  let policy: ReadPolicy;
  let credentials: string;
  before(async () => {
    workspace = await fs.realpath(dirs.make());
    outside = await fs.realpath(dirs.make());
    tmp = await fs.realpath(os.tmpdir());
    policy = { folders: [workspace], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS };
    credentials = path.join(outside, '.aws', 'credentials');
    await fs.mkdir(path.dirname(credentials));
    await fs.writeFile(credentials, `[default]\naws_session_label = ${MARKER}\n`);
    await fs.writeFile(path.join(workspace, 'normal.log'), 'line one\nERROR disk full\nline three\n');
  });
  after(async () => {
    await Promise.all(cleanup.map((file) => fs.rm(file, { force: true })));
  });

  const page = (file: string, extra: object = {}, with_: ReadPolicy = policy): Promise<string> =>
    readFilePageText({ path: file, ...extra }, with_);
  const search = (file: string, pattern: string, with_: ReadPolicy = policy, extra: object = {}): Promise<string> =>
    searchFileText({ path: file, pattern, ...extra }, with_);

  /** The tools still answer: a page and a search of a normal workspace file (a hang fails the test by its timeout). */
  async function toolsStillAnswer(): Promise<void> {
    assert.match(await page('normal.log'), /ERROR disk full/);
    assert.match(await search('normal.log', 'disk full'), /"matches":1/);
  }

  describe('item 2: a FIFO is refused before it is opened for reading', function () {
    // Generous: every call here answers at once; a hang (the pool wedged) fails by this timeout.
    this.timeout(60_000);
    const fifos: string[] = [];
    before(function () {
      if (spawnSync('mkfifo', ['--help']).error) {
        skipBecause(this, 'no mkfifo on this system');
      }
      // In the workspace, and named like a saved tool result in the temp folder.
      fifos.push(path.join(workspace, 'pipe.log'), path.join(tmp, spillName()));
      for (const fifo of fifos) assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      cleanup.push(...fifos);
    });
    after(async () => {
      // Had an open blocked (before the fix), a writer frees it, so the process can exit.
      for (const fifo of fifos) {
        const writer = await fs.open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
        await writer?.close();
      }
    });

    it('eight FIFO calls at once (more than libuv has pool threads), each INVALID_ARGUMENT; then the other tools answer', async () => {
      const calls = fifos.flatMap((fifo) => [
        page(fifo),
        search(fifo, 'x'),
        page(fifo, { line: 2 }),
        search(fifo, 'y', policy, { regex: true }),
      ]);
      const outcomes = calls.map((call) => call.then(String, (error: unknown) => error));
      // Before the fix each search's open held a pool thread for good: these never answered.
      await toolsStillAnswer();
      for (const outcome of await Promise.all(outcomes)) {
        assert.ok(isRecallError(outcome, 'INVALID_ARGUMENT'), String(outcome));
        assert.match(outcome.message, /is a FIFO \(named pipe\); (read_file_page|search_tool_output) reads regular files only/);
        assert.match(outcome.message, /Pass a regular file/);
      }
      await toolsStillAnswer();
    });

    it('a link to a FIFO, and a socket, are refused the same way', async () => {
      await fs.symlink(fifos[0], path.join(workspace, 'pipe-link.log'));
      for (const error of [
        await rejectsWith(page('pipe-link.log'), 'INVALID_ARGUMENT'),
        await rejectsWith(search('pipe-link.log', 'x'), 'INVALID_ARGUMENT'),
      ]) {
        assert.match(error.message, /FIFO/);
      }
      const net = await import('node:net');
      const server = net.createServer();
      const socket = path.join(workspace, 'app.sock');
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      try {
        assert.match((await rejectsWith(search('app.sock', 'x'), 'INVALID_ARGUMENT')).message, /is a socket/);
      } finally {
        server.close();
      }
      await toolsStillAnswer();
    });
  });

  describe('item 3: a file swapped between the check and the read', () => {
    /** Runs `script` (argv: its arguments) in a child process until stopped. */
    function flipper(script: string, ...args: string[]): ChildProcess {
      return spawn(process.execPath, ['-e', script, ...args], { stdio: 'ignore' });
    }
    /** Flips `target` between a regular file and a symlink to `secret`, by atomic renames. */
    const FILE_FLIP = `
      const fs = require('node:fs');
      const [target, secret, innocent] = process.argv.slice(1);
      for (;;) {
        try {
          fs.symlinkSync(secret, target + '.flip-link');
          fs.renameSync(target + '.flip-link', target);
          fs.writeFileSync(target + '.flip-file', innocent);
          fs.renameSync(target + '.flip-file', target);
        } catch {}
      }`;
    /** Flips the folder `dir` between itself and a symlink to `other`. */
    const FOLDER_FLIP = `
      const fs = require('node:fs');
      const [dir, other] = process.argv.slice(1);
      for (;;) {
        try {
          fs.renameSync(dir, dir + '.real');
          fs.symlinkSync(other, dir);
          fs.unlinkSync(dir);
          fs.renameSync(dir + '.real', dir);
        } catch {}
      }`;

    interface Tally {
      leaks: number;
      read: number;
      refused: number;
      codes: Set<string>;
    }
    /** Calls `call` `times` times while `child` flips; counts results that hold MARKER. */
    async function tally(child: ChildProcess, times: number, call: () => Promise<string>): Promise<Tally> {
      const result: Tally = { leaks: 0, read: 0, refused: 0, codes: new Set() };
      try {
        for (let i = 0; i < times; i++) {
          try {
            const text = await call();
            if (text.includes(MARKER)) result.leaks++;
            else result.read++;
          } catch (error) {
            assert.ok(isRecallError(error), `not a RecallError: ${String(error)}`);
            assert.ok(!error.message.includes(MARKER));
            result.refused++;
            result.codes.add(error.code);
          }
        }
      } finally {
        child.kill();
      }
      return result;
    }
    /** No leak, and the flip was seen both ways (so the loop raced at all). */
    function held(result: Tally, what: string): void {
      console.log(
        `    ${what}: ${result.leaks} leaks, ${result.read} reads of the right file, ${result.refused} refused (${[...result.codes].join(', ')})`,
      );
      assert.equal(result.leaks, 0, `${what}: the outside file was read ${result.leaks} times`);
      assert.ok(
        result.read > 0 && result.refused > 0,
        `${what}: the flip was not seen both ways: ${JSON.stringify({ ...result, codes: [...result.codes] })}`,
      );
    }

    it('a spill-named file flipped to a link to ~/.aws/credentials: 0 leaks in 1,500 read_file_page calls', async () => {
      const spill = path.join(tmp, spillName());
      cleanup.push(spill, `${spill}.flip-link`, `${spill}.flip-file`);
      await fs.writeFile(spill, INNOCENT);
      held(await tally(flipper(FILE_FLIP, spill, credentials, INNOCENT), 1500, () => page(spill)), 'read_file_page, spill file');
    });

    it('the same in 1,000 searches', async () => {
      const spill = path.join(tmp, spillName());
      cleanup.push(spill, `${spill}.flip-link`, `${spill}.flip-file`);
      await fs.writeFile(spill, INNOCENT);
      const pattern = `innocent|${MARKER}`;
      held(
        await tally(flipper(FILE_FLIP, spill, credentials, INNOCENT), 1000, () => search(spill, pattern, policy, { regex: true })),
        'search_tool_output, spill file',
      );
    });

    it('a workspace file flipped the same way: 0 leaks in 1,000 reads', async () => {
      const file = path.join(workspace, 'notes.txt');
      await fs.writeFile(file, INNOCENT);
      held(await tally(flipper(FILE_FLIP, file, credentials, INNOCENT), 1000, () => page('notes.txt')), 'read_file_page, workspace file');
    });

    it('a workspace folder flipped to a link to a folder outside (the descriptor is checked, not the path): 0 leaks in 1,000 reads', async () => {
      await fs.mkdir(path.join(workspace, 'logs'));
      await fs.writeFile(path.join(workspace, 'logs', 'credentials'), INNOCENT);
      const child = flipper(FOLDER_FLIP, path.join(workspace, 'logs'), path.dirname(credentials));
      held(await tally(child, 1000, () => page('logs/credentials')), 'read_file_page, folder flip');
    });
  });

  describe('item 4: /proc, /sys and /dev are never read', () => {
    const anywhere = (): ReadPolicy => ({ ...policy, allowOutsideWorkspace: true });

    it('/proc/self/environ: REFUSED by both tools even when reading outside the workspace is allowed, naming the rule', async function () {
      if (process.platform !== 'linux') skipBecause(this, `${process.platform} has no /proc`);
      for (const call of [page('/proc/self/environ', {}, anywhere()), search('/proc/self/environ', 'PATH', anywhere())]) {
        const error = await rejectsWith(call, 'REFUSED');
        assert.match(error.message, /under \/proc: (read_file_page|search_tool_output) never reads kernel, process or device files/);
        assert.doesNotMatch(error.message, /PATH=/);
      }
    });

    it('a workspace link to /proc/self/environ, /proc/self/status, /sys and /dev files: REFUSED', async function () {
      if (process.platform !== 'linux') skipBecause(this, `${process.platform} has no /proc, /sys or Linux /dev`);
      await fs.symlink('/proc/self/environ', path.join(workspace, 'env.txt'));
      const error = await rejectsWith(search('env.txt', 'PATH'), 'REFUSED');
      assert.match(error.message, /resolves to \/proc\/\d+\/environ, under \/proc/);
      for (const file of ['/proc/self/status', '/proc/self/cmdline', '/sys/kernel', '/dev/null', '/dev/zero']) {
        await rejectsWith(page(file, {}, anywhere()), 'REFUSED', file);
        await rejectsWith(search(file, 'a', anywhere()), 'REFUSED', file);
      }
    });
  });

  describe('item 5: hard links and secret-shaped values', () => {
    it('a hard link outside the workspace is REFUSED (named like a saved tool result, or with outside reads allowed)', async () => {
      const spill = path.join(tmp, spillName());
      cleanup.push(spill);
      await fs.link(credentials, spill);
      for (const call of [page(spill), search(spill, 'aws')]) {
        const error = await rejectsWith(call, 'REFUSED');
        assert.match(error.message, /a file with 2 names \(hard links\) outside the workspace folders/);
        assert.doesNotMatch(error.message, new RegExp(MARKER));
      }
      const other = path.join(outside, 'notes.txt');
      await fs.writeFile(other, INNOCENT);
      await fs.link(other, path.join(outside, 'notes-link.txt'));
      await rejectsWith(page(other, {}, { ...policy, allowOutsideWorkspace: true }), 'REFUSED');
      // With one name it reads.
      await fs.rm(path.join(outside, 'notes-link.txt'));
      assert.match(await page(other, {}, { ...policy, allowOutsideWorkspace: true }), /innocent text/);
    });

    it('a hard link inside the workspace reads, its secret-shaped values masked', async () => {
      const keys = path.join(outside, 'keys.ini');
      const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
      await fs.writeFile(keys, `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${secret}\n`);
      await fs.chmod(keys, 0o644); // readable by all: not private (issue 28: a private file with two names is refused)
      await fs.link(keys, path.join(workspace, 'settings.ini'));
      const text = await page('settings.ini');
      assert.doesNotMatch(text, /IOSFODNN7EXAMPLE|EXAMPLEKEY/);
      assert.match(text, /aws_access_key_id = AKIA\*{16}\n/);
      assert.match(text, /"masked":2/);
      assert.match(text, /masked: 2 secret-shaped values in this page/);
    });

    it('.git/config: a token in a remote URL and an extra header are masked; the rest reads, offsets exact', async () => {
      const password = 'glpat-Z3kq9Xx7Yy1Ww2Vv3Uu4';
      const config = [
        '[core]\n\trepositoryformatversion = 0\n',
        `[remote "origin"]\n\turl = https://oauth2:${password}@gitlab.example.com/team/app.git\n`,
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX0FiQ2RFZjEyMzQ1Njc4OTA=\n',
        '[branch "main"]\n\tremote = origin\n',
      ].join('');
      await fs.mkdir(path.join(workspace, '.git'));
      await fs.writeFile(path.join(workspace, '.git', 'config'), config);
      const text = await page('.git/config');
      const body = text.slice(text.indexOf('---\n') + 4);
      assert.equal(Buffer.byteLength(body), Buffer.byteLength(config), 'same length: offsets unchanged');
      assert.doesNotMatch(body, /glpat-|eC1hY2Nl/);
      assert.match(body, new RegExp(`url = https://oauth2:\\*{${password.length}}@gitlab\\.example\\.com/team/app\\.git`));
      assert.match(body, /\[branch "main"\]/);
      const found = await search('.git/config', 'gitlab.example.com');
      assert.match(found, /"masked":2/);
      assert.match(found, /oauth2:\*+@gitlab/);
      // The search runs over the masked text: the secret cannot be found, nor probed a character at a time.
      assert.match(await search('.git/config', 'glpat-Z3kq'), /"matches":0/);
      assert.match(await search('.git/config', 'oauth2:g', policy, { regex: true }), /"matches":0/);
    });

    it('.npmrc.bak with an _authToken is REFUSED; a service account key by another name has its private key masked', async () => {
      await fs.writeFile(path.join(workspace, '.npmrc.bak'), '//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n');
      assert.match((await rejectsWith(page('.npmrc.bak'), 'REFUSED')).message, /\.npmrc\.bak contains a credential \(_authToken\)/);
      await rejectsWith(search('.npmrc.bak', 'registry'), 'REFUSED');
      const body = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7'.repeat(30);
      const json = `{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${body}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "bot@p.iam.gserviceaccount.com"\n}\n`;
      await fs.writeFile(path.join(workspace, 'key.json'), json);
      const text = await page('key.json');
      assert.doesNotMatch(text, /MIIEvQ/);
      assert.match(text, /-----BEGIN PRIVATE KEY-----\*+-----END PRIVATE KEY-----/);
      assert.match(text, /bot@p\.iam\.gserviceaccount\.com/);
      await rejectsWith(page('service-account.json'), 'NOT_FOUND');
      await fs.writeFile(path.join(workspace, 'service-account.json'), json);
      assert.match((await rejectsWith(page('service-account.json'), 'REFUSED')).message, /matches "\*service-account\*\.json"/);
    });

    it('a private key larger than a page: every page inside it is masked, by line and by byte offset', async () => {
      const lines = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(4, '0')}${'Qk1vZGVsS2V5'.repeat(5)}`);
      const file = `notes\n-----BEGIN RSA PRIVATE KEY-----\n${lines.join('\n')}\n-----END RSA PRIVATE KEY-----\nafter\n`;
      await fs.writeFile(path.join(workspace, 'deploy.txt'), file);
      for (const at of [{ line: 100 }, { byteOffset: 8000 }, { line: 1 }, { line: 201 }]) {
        const text = await page('deploy.txt', { ...at, maxBytes: 512 });
        assert.doesNotMatch(text, /Qk1v/, JSON.stringify(at));
      }
      assert.match(await page('deploy.txt', { line: 203 }), /-----END RSA PRIVATE KEY-----\nafter\n/);
      assert.match(await search('deploy.txt', 'Qk1vZGVs'), /"matches":0/);
    });

    it('a secret cut by the end of a 4 MiB read is masked in the search all the same (a long line, and lines)', async () => {
      const token = `ghp_${'Ab3'.repeat(12)}`;
      const read = 4 * 1024 * 1024;
      const long = Buffer.alloc(read + 4096, 'x');
      long.write(` ${token} `, read - 10);
      const lines = Buffer.from(`${'y'.repeat(99)}\n`.repeat(Math.ceil(read / 100) + 10));
      lines.write(` ${token} `, read - 10);
      for (const [name, bytes] of [
        ['long.txt', long],
        ['lines.txt', lines],
      ] as const) {
        await fs.writeFile(path.join(workspace, name), bytes);
        const text = await search(name, 'ghp_.{0,40}', policy, { regex: true });
        assert.doesNotMatch(text, /Ab3/, name);
        assert.match(text, /ghp_\*{36}/, name);
        assert.match(text, /masked: 1 secret-shaped value in the text searched/, name);
      }
    });
  });

  // Issue 28, item 12 (b): a hard link inside the workspace to a credential outside it. The
  // credentials are in a temporary home folder (HOME, USERPROFILE on Windows: os.homedir()).
  describe('issue 28: hard links inside the workspace', () => {
    const saved = { HOME: process.env.HOME, USERPROFILE: process.env.USERPROFILE };
    let home: string;
    /** Writes `content` at `name` under the home folder with `mode`, and returns its path. */
    async function homeFile(name: string, content: string, mode: number): Promise<string> {
      const file = path.join(home, ...name.split('/'));
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      await fs.chmod(file, mode);
      return file;
    }
    before(async () => {
      home = await fs.realpath(dirs.make());
      process.env.HOME = home;
      process.env.USERPROFILE = home;
      assert.equal(os.homedir(), home);
    });
    after(() => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    });

    it('a hard link in the workspace to ~/.aws/credentials under a harmless name: REFUSED by both tools, naming the credential and what to do', async () => {
      // As `aws configure` writes it: 0600.
      const secret = await homeFile('.aws/credentials', `[default]\naws_session_label = ${MARKER}\n`, 0o600);
      await fs.link(secret, path.join(workspace, 'build-notes.txt'));
      for (const call of [
        () => page('build-notes.txt'),
        () => search('build-notes.txt', 'default'),
        () => search('build-notes.txt', MARKER),
      ]) {
        const error = await rejectsWith(call, 'REFUSED');
        assert.match(
          error.message,
          new RegExp(
            `^build-notes\\.txt is a hard link to ${escape(secret)} \\(one file with 2 names\\), a sensitive file \\(matches "\\.aws/credentials"\\); (read_file_page|search_tool_output) does not read credentials under any name\\.`,
          ),
        );
        assert.match(
          error.message,
          /Ask the user for the specific non-secret value you need, and tell them that a link to their credentials is in the workspace at /,
        );
        assert.doesNotMatch(error.message, new RegExp(MARKER));
      }
    });

    it('the same for the other credentials in the home folder, readable by all or not (the file is found by its device and inode)', async () => {
      const names = [
        '.ssh/id_ed25519',
        '.ssh.bak/id_rsa2',
        '.netrc',
        '.git-credentials',
        '.config/gh/hosts.yml',
        '.kube/config',
        '.docker/config.json',
        '.config/gcloud/legacy_credentials/me@example.com/adc.json',
        '.AWS/CREDENTIALS', // and in any case (issue 28 (a))
      ];
      for (const [i, name] of names.entries()) {
        const secret = await homeFile(name, `${MARKER}\n`, i % 2 ? 0o600 : 0o644);
        const link = `linked-${i}.log`;
        await fs.link(secret, path.join(workspace, link));
        const error = await rejectsWith(page(link), 'REFUSED', name);
        assert.match(error.message, new RegExp(`is a hard link to ${escape(secret)} \\(one file with 2 names\\), a sensitive file`), name);
        await rejectsWith(search(link, 'x'), 'REFUSED', name);
      }
    });

    it('~/.npmrc linked in: REFUSED when it holds a token, read when it does not (its other name is judged as the file would be)', async () => {
      const npmrc = await homeFile('.npmrc', 'save-exact=true\n', 0o644);
      await fs.link(npmrc, path.join(workspace, 'npm-settings.txt'));
      assert.match(await page('npm-settings.txt'), /save-exact=true/);
      await fs.appendFile(npmrc, '//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n');
      const error = await rejectsWith(page('npm-settings.txt'), 'REFUSED');
      assert.match(
        error.message,
        /is a hard link to .*\.npmrc \(one file with 2 names\), a sensitive file \(\.npmrc contains a credential \(_authToken\)\)/,
      );
    });

    it('a private (0600) file with two names, kept outside the home credential folders: REFUSED, saying how to get it read; a copy reads', async function () {
      if (process.platform === 'win32') skipBecause(this, 'Windows has no private mode bits');
      const secret = path.join(outside, 'deploy-token.txt');
      await fs.writeFile(secret, `token for the deploy bot: ${MARKER}\n`, { mode: 0o600 });
      await fs.chmod(secret, 0o600);
      await fs.link(secret, path.join(workspace, 'bot-notes.txt'));
      for (const call of [() => page('bot-notes.txt'), () => search('bot-notes.txt', 'token')]) {
        const error = await rejectsWith(call, 'REFUSED');
        assert.match(error.message, /a file with 2 names \(hard links\) that only its owner may read \(mode 0600\)/);
        assert.match(
          error.message,
          /ask the user to copy the part you need into a file of its own in the workspace \(a copy has one name\)/,
        );
        assert.doesNotMatch(error.message, new RegExp(MARKER));
      }
      // The user's copy has one name: read (private or not).
      await fs.copyFile(secret, path.join(workspace, 'bot-notes-copy.txt'));
      assert.match(await page('bot-notes-copy.txt'), /token for the deploy bot/);
    });

    it('still read: pnpm and bun installs (links into a store in the home folder), cp -al copies', async () => {
      // Credentials in the home folder, so the look at their names runs and finds none of these.
      await homeFile('.aws/config', '[default]\nregion = eu-west-1\n', 0o600);
      await homeFile('.ssh/id_rsa', 'key\n', 0o600);
      // pnpm: node_modules/.pnpm/<name>@<version>/node_modules/<name>/<file> is a hard link into the store.
      const store = path.join(home, '.local', 'share', 'pnpm', 'store', 'v3', 'files');
      const installed = path.join(workspace, 'node_modules', '.pnpm', 'left-pad@1.3.0', 'node_modules', 'left-pad');
      await fs.mkdir(path.join(store, '3f'), { recursive: true });
      await fs.mkdir(path.join(installed, 'bin'), { recursive: true });
      await fs.writeFile(path.join(store, '3f', 'a1b2c3'), 'module.exports = leftPad;\nfunction leftPad(str, len, ch) {}\n', {
        mode: 0o644,
      });
      await fs.writeFile(path.join(store, '3f', 'd4e5f6-exec'), '#!/usr/bin/env node\nrequire("../");\n', { mode: 0o755 });
      await fs.link(path.join(store, '3f', 'a1b2c3'), path.join(installed, 'index.js'));
      await fs.link(path.join(store, '3f', 'd4e5f6-exec'), path.join(installed, 'bin', 'left-pad'));
      // bun: node_modules/<name>/<file>, a hard link into ~/.bun/install/cache.
      const cache = path.join(home, '.bun', 'install', 'cache', 'is-odd@3.0.1');
      await fs.mkdir(cache, { recursive: true });
      await fs.mkdir(path.join(workspace, 'node_modules', 'is-odd'), { recursive: true });
      await fs.writeFile(path.join(cache, 'index.js'), 'module.exports = (n) => n % 2 === 1;\n', { mode: 0o644 });
      await fs.link(path.join(cache, 'index.js'), path.join(workspace, 'node_modules', 'is-odd', 'index.js'));
      for (const [file, text] of [
        ['node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js', /function leftPad/],
        ['node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/bin/left-pad', /require\("\.\.\/"\)/],
        ['node_modules/is-odd/index.js', /n % 2 === 1/],
      ] as const) {
        assert.equal((await fs.stat(path.join(workspace, file))).nlink, 2, file);
        assert.match(await page(file), text, file);
        assert.match(await search(file, 'module|require', policy, { regex: true }), /"matches":1/, file);
      }
      // cp -al: a copy of a tree made of hard links.
      await fs.mkdir(path.join(workspace, 'src'));
      await fs.writeFile(path.join(workspace, 'src', 'main.ts'), 'export const main = 1;\n', { mode: 0o644 });
      await fs.mkdir(path.join(workspace, 'src-copy'));
      await fs.link(path.join(workspace, 'src', 'main.ts'), path.join(workspace, 'src-copy', 'main.ts'));
      assert.match(await page('src-copy/main.ts'), /export const main/);
    });

    it('still read: the objects git clone --local shares with the clone it came from', async function () {
      const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' });
      if (git(outside, '--version').error) skipBecause(this, 'git is not installed');
      const origin = path.join(outside, 'origin');
      await fs.mkdir(origin);
      const steps = [
        ['init', '-q'],
        ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'first'],
      ];
      for (const args of steps) assert.equal(git(origin, ...args).status, 0, args.join(' '));
      assert.equal(git(workspace, 'clone', '-q', '--local', origin, 'clone').status, 0);
      const objects = path.join(workspace, 'clone', '.git', 'objects');
      const linked: string[] = [];
      for (const folder of await fs.readdir(objects)) {
        if (!/^[0-9a-f]{2}$/.test(folder)) continue;
        for (const name of await fs.readdir(path.join(objects, folder))) {
          const file = path.join(objects, folder, name);
          if ((await fs.stat(file)).nlink > 1) linked.push(file);
        }
      }
      if (linked.length === 0) skipBecause(this, 'this git copied the objects instead of linking them');
      for (const file of linked) assert.equal(await readablePath(file, policy), file);
    });
  });
});
