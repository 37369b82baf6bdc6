// Issue 21, items 2 to 5, against the tools' own text functions (what the MCP server and the
// extension return): a FIFO cannot wedge the server, a file swapped between the check and the read
// leaks nothing, /proc, /sys and /dev are never read, hard links outside the workspace are refused,
// and secret-shaped values are masked in pages and searches.
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
import { rejectsWith } from './helpers/assertions';
import { spillName } from './helpers/readable';
import { useTempDirs } from './helpers/tempDirs';

/** In the fake credentials only: a read that returns it read the wrong file. */
const MARKER = 'LEAK-MARKER-51c9e';
const INNOCENT = 'innocent text of a saved tool result\n';

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
        console.log('    (skipped: no mkfifo on this system)');
        this.skip();
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
      if (process.platform !== 'linux') this.skip();
      for (const call of [page('/proc/self/environ', {}, anywhere()), search('/proc/self/environ', 'PATH', anywhere())]) {
        const error = await rejectsWith(call, 'REFUSED');
        assert.match(error.message, /under \/proc: (read_file_page|search_tool_output) never reads kernel, process or device files/);
        assert.doesNotMatch(error.message, /PATH=/);
      }
    });

    it('a workspace link to /proc/self/environ, /proc/self/status, /sys and /dev files: REFUSED', async function () {
      if (process.platform !== 'linux') this.skip();
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
});
