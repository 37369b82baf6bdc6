import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FILE_WINDOW_BYTES, OVERLAP_BYTES, searchFile } from '../../src/core/files/fileSearch';
import { readFilePage } from '../../src/core/files/filePager';
import type { ReadPolicy } from '../../src/core/files/readablePath';
import { readablePath, spillName } from '../unit/helpers/readable';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { isChatSpillFile } from '../../src/core/files/spillFiles';
import { searchFileText } from '../../src/core/tools/searchFile';
import { compileSearch, searchBytes } from '../../src/core/search';
import type { SearchOptions } from '../../src/core/types';
import { rejectsWith } from '../unit/helpers/assertions';
import { useTempDirs } from '../unit/helpers/tempDirs';

const MiB = 1024 * 1024;

describe('search_tool_output over a file (searchFile)', function () {
  this.timeout(120_000);
  const dirs = useTempDirs('search-file');
  const spills: string[] = [];
  let workspace: string;
  let policy: ReadPolicy;
  before(async () => {
    workspace = await fs.realpath(dirs.make());
    policy = { folders: [workspace], allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS };
  });
  after(async () => {
    await Promise.all(spills.map((file) => fs.rm(file, { force: true })));
  });

  /** A file directly in the temp folder, named like a chat spill file (removed after the suite). */
  const spill = async (content: Buffer | string): Promise<string> => {
    const file = path.join(await fs.realpath(os.tmpdir()), spillName());
    spills.push(file);
    await fs.writeFile(file, content);
    return file;
  };

  /** The offsets searchFile reports are the ones one pass over the whole file in memory reports. */
  const sameAsInMemory = async (file: string, pattern: string, options: SearchOptions): Promise<number[]> => {
    const found = await searchFile(file, pattern, { maxMatches: 1000, ...options });
    const bytes = await fs.readFile(file);
    const whole = searchBytes(bytes, compileSearch('f', pattern, { maxMatches: 1000, ...options }));
    assert.deepEqual(found.matches, whole.matches, `${pattern} ${JSON.stringify(options)}`);
    assert.equal(found.truncated, whole.truncated);
    assert.equal(found.totalBytes, bytes.length);
    return found.matches.map((m) => m.offset);
  };

  it('a 50 MB spill file: a match near its end and a CJK match in one call each, and read_file_page continues from the byteOffset', async () => {
    const line = 'INFO 2024-05-18T08:00:00.000Z worker[7] request ok bytes=1234 user=alice\n';
    const lines = Math.floor((50 * MiB) / line.length);
    const body = Buffer.from(line.repeat(lines));
    const needle = 'FATAL settlement_ref=ZX9-7F3A-END';
    const cjk = '数据库连接已关闭';
    const tail = Buffer.from(`${needle} total=1\nERROR ${cjk}: pool drained\nend\n`);
    const file = await spill(Buffer.concat([body, tail]));
    assert.ok((await fs.stat(file)).size > 50 * 1000 * 1000);
    assert.equal(await readablePath(file, policy), file, 'a spill file is readable outside the workspace');

    const found = await searchFile(file, 'settlement_REF=zx9');
    assert.equal(found.matches.length, 1);
    const [match] = found.matches;
    assert.equal(match.offset, body.length + 'FATAL '.length);
    assert.equal(match.lineOffset, body.length);
    assert.equal(match.line, lines + 1);
    assert.equal(match.text, `${needle} total=1`);
    const page = await readFilePage(file, { byteOffset: match.lineOffset, maxBytes: 200 });
    assert.ok(page.text.startsWith(`${needle} total=1\nERROR ${cjk}`), page.text.slice(0, 60));

    const chinese = await searchFile(file, cjk, { caseSensitive: true });
    assert.equal(chinese.matches.length, 1);
    assert.equal(chinese.matches[0].offset, body.length + tail.indexOf(cjk));
    assert.equal(chinese.matches[0].line, lines + 2);
    const cjkPage = await readFilePage(file, { byteOffset: chinese.matches[0].offset, maxBytes: 64 });
    assert.ok(cjkPage.text.startsWith(`${cjk}: pool drained`));
    assert.equal((await searchFile(file, 'pool drained$', { regex: true })).matches.length, 1);
  });

  it('finds matches that straddle the edges of its reads, with exact offsets and lines', async () => {
    // Lines of 1000 bytes, with a hit placed across each window edge and at both ends.
    const filler = `${'x'.repeat(999)}\n`;
    const text = Buffer.from(filler.repeat(Math.ceil((2.5 * FILE_WINDOW_BYTES) / filler.length)));
    for (const at of [0, FILE_WINDOW_BYTES - 3, 2 * FILE_WINDOW_BYTES - 1, text.length - 10]) Buffer.from('NEEDLE').copy(text, at);
    const file = path.join(workspace, 'edges.log');
    await fs.writeFile(file, text);
    const offsets = await sameAsInMemory(file, 'needle', {});
    assert.equal(offsets.length, 4);
    await sameAsInMemory(file, 'N[A-Z]+E\\b', { regex: true, caseSensitive: true });
    await sameAsInMemory(file, '^xx', { regex: true, maxMatches: 1000 });
  });

  it('a line longer than a read is searched in overlapping pieces: its matches keep their offsets, line and line start', async () => {
    const long = Buffer.alloc(3 * FILE_WINDOW_BYTES, 'a');
    const places = [
      10,
      FILE_WINDOW_BYTES - OVERLAP_BYTES - 2,
      FILE_WINDOW_BYTES + 5,
      2 * FILE_WINDOW_BYTES - OVERLAP_BYTES,
      long.length - 20,
    ];
    for (const at of places) Buffer.from('{"id":"日本"}').copy(long, at);
    const file = path.join(workspace, 'one-line.json');
    await fs.writeFile(file, Buffer.concat([Buffer.from('first line\n'), long, Buffer.from('\nlast line\n')]));
    const found = await searchFile(file, '"id":"[^"]*"', { regex: true });
    assert.deepEqual(
      found.matches.map((m) => m.offset),
      places.map((at) => at + 12), // after "first line\n" and the "{"
    );
    assert.ok(found.matches.every((m) => m.line === 2 && m.lineOffset === 11));
    assert.ok(found.matches.every((m) => m.text.includes('{"id":"日本"}')));
    await sameAsInMemory(file, 'last', {});
  });

  it('finds a pattern that names a line break across the edge of a read', async () => {
    const filler = `${'y'.repeat(99)}\n`;
    const text = Buffer.from(filler.repeat(Math.ceil((1.5 * FILE_WINDOW_BYTES) / filler.length)));
    const edge = text.lastIndexOf(0x0a, FILE_WINDOW_BYTES - 1);
    Buffer.from('ERROR').copy(text, edge - 5);
    Buffer.from('at').copy(text, edge + 1);
    const file = path.join(workspace, 'stack.log');
    await fs.writeFile(file, text);
    assert.deepEqual(await sameAsInMemory(file, 'ERROR\\nat', { regex: true }), [edge - 5]);
  });

  it('is UTF-8 safe on binary content: offsets are decoder boundaries, as in memory', async () => {
    const parts: Buffer[] = [];
    for (let i = 0; i < 3000; i++) parts.push(Buffer.from([0xe2, 0x82]), Buffer.from(`mark ${i} 😀 Überprüfung\n`), Buffer.from([0xff]));
    const file = path.join(workspace, 'binary.bin');
    await fs.writeFile(file, Buffer.concat(parts));
    await sameAsInMemory(file, 'überprüfung', {});
    await sameAsInMemory(file, '\uFFFDmark', {});
    await sameAsInMemory(file, 'mark \\d+', { regex: true });
  });

  it('refuses a spill-named symlink that leads out of the temp folder, and a spill-named file elsewhere', async () => {
    const secret = path.join(workspace, '..', `${path.basename(workspace)}-secret.txt`);
    await fs.writeFile(secret, 'not a spill file\n');
    spills.push(secret);
    const link = path.join(await fs.realpath(os.tmpdir()), spillName());
    spills.push(link);
    await fs.symlink(secret, link);
    const outside: ReadPolicy = { ...policy, folders: [path.join(workspace, 'elsewhere')] };
    const error = await rejectsWith(readablePath(link, outside), 'REFUSED');
    assert.match(error.message, /outside the workspace folders/);
    // The refusal names the tool that was called.
    const searched = await rejectsWith(searchFileText({ path: link, pattern: 'spill' }, outside), 'REFUSED');
    assert.match(searched.message, /search_tool_output does not read there/);
    assert.doesNotMatch(searched.message, /not a spill file/);
    assert.equal(await isChatSpillFile(await fs.realpath(link)), false);
    // The right name in a folder of the temp folder is not one of VS Code's spill files.
    const nested = path.join(workspace, spillName());
    await fs.writeFile(nested, 'x');
    await rejectsWith(readablePath(nested, outside), 'REFUSED');
    // Nor is a file in the temp folder with another name.
    const other = path.join(await fs.realpath(os.tmpdir()), `copilot-tool-output-${Date.now()}.log`);
    spills.push(other);
    await fs.writeFile(other, 'x');
    await rejectsWith(readablePath(other, outside), 'REFUSED');
    assert.equal(await readablePath(await spill('ok'), outside).then(() => 'allowed'), 'allowed');
  });

  it('bad inputs: a missing file is NOT_FOUND, a bad pattern INVALID_ARGUMENT, an aborted signal CANCELLED', async () => {
    await rejectsWith(searchFile(path.join(workspace, 'missing.log'), 'x'), 'NOT_FOUND');
    const file = path.join(workspace, 'small.log');
    await fs.writeFile(file, 'hello\n');
    await rejectsWith(searchFile(file, ''), 'INVALID_ARGUMENT');
    await rejectsWith(searchFile(file, '(?=x)', { regex: true }), 'INVALID_ARGUMENT');
    await rejectsWith(searchFile(file, 'x', { maxMatches: 0 }), 'INVALID_ARGUMENT');
    const abort = new AbortController();
    abort.abort();
    await rejectsWith(searchFile(file, 'hello', { signal: abort.signal }), 'CANCELLED');
    assert.equal((await searchFile(file, 'HELLO')).matches[0].text, 'hello');
  });

  it('masks a token whose end crosses the edge of a read (FILE_WINDOW_BYTES) whole (the part past the edge was shown in clear)', async () => {
    const values: [prefix: string, secret: string][] = [
      ['github_pat_', `11ABCDEFG0_${'Zq7Wm2Xk9Lp4Rt6Yv8Nb3Hc5Jd1Fg0Sa'.repeat(2)}`],
      ['sk-ant-', `api03-${'Xy9Kp2Lm4Nq6Rs8Tu0Vw1Zb3Cd5Ef7Gh'.repeat(2)}`],
      ['//registry.npmjs.org/:_authToken=', 'Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc'],
      ['Authorization: Bearer ', 'Mn4Bv6Cx8Za0Sd2Fg4Hj6Kl8Qw0Er2Ty4Ui6'],
      ['jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
      ['SLACK=xoxb-', '1234567890123-Ab3De5Gh7Jk9Mn1Pq3St5Vw'],
    ];
    for (const [prefix, secret] of values) {
      // The value's second half lies past byte FILE_WINDOW_BYTES; the filler has no 8-character word.
      const line = `marker ${prefix}${secret} done\n`;
      const start = FILE_WINDOW_BYTES - (line.length - ' done\n'.length) + Math.floor(secret.length / 2);
      const file = path.join(workspace, 'edge.log');
      await fs.writeFile(file, `${'ab '.repeat(26)}a\n`.repeat(Math.floor(start / 80)) + ' '.repeat(start % 80) + line + 'tail\n');
      for (const [pattern, regex] of [
        ['marker', false],
        ['[A-Za-z0-9_=-]{8,}', true],
        ['done', false],
      ] as const) {
        const found = await searchFile(file, pattern, { regex, maxMatches: 1000 });
        const shown = found.matches.map((match) => match.text).join('\n');
        for (let at = 0; at + 8 <= secret.length; at++) {
          assert.ok(!shown.includes(secret.slice(at, at + 8)), `${prefix}: "${secret.slice(at, at + 8)}" shown in clear by ${pattern}`);
        }
        assert.equal(found.masked, 1, `${prefix} ${pattern}`);
      }
    }
  });
});
