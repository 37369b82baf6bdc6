// Issue 37 §7: a copy kept from a file an agent saved (VS Code's terminal tool's output files, kept by
// terminalOutputKeeper.ts; Copilot CLI's and Claude Code's saved results, kept by the hooks) is masked
// as read_file_page masks the same file. Before, read_file_page masked the file while its copy read
// back raw by outputId. Past the copy cap, a key the gap cuts is masked up to its END line.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SENSITIVE_PATTERNS } from '../../src/core/files/sensitivePaths';
import { readSpillForCopy } from '../../src/core/files/spillCopy';
import { readFilePageText } from '../../src/core/tools/readFilePage';
import { useTempDirs } from './helpers/tempDirs';

const TOKEN = `ghp_${'Zq9'.repeat(12)}`;
const BODY = Array.from({ length: 20 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${String(i).padStart(13, '7')}`);
const KEY = ['-----BEGIN PRIVATE KEY-----', ...BODY, '-----END PRIVATE KEY-----'].join('\n');

describe('copies kept from saved files are masked like read_file_page (issue 37 §7)', () => {
  const dirs = useTempDirs('spill-copy');

  async function terminalFile(text: string): Promise<{ file: string; policy: Parameters<typeof readSpillForCopy>[1] }> {
    const folder = await fs.realpath(dirs.make());
    const file = path.join(folder, `copilot-terminal-output-${randomUUID()}.txt`);
    await fs.writeFile(file, text);
    return {
      file,
      policy: {
        folders: [],
        allowOutsideWorkspace: false,
        sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS,
        spillRoots: { terminalOutput: [folder] },
      },
    };
  }

  it('a terminal output file: the copy holds the masked text read_file_page shows, byte for byte, and counts what it masked', async () => {
    const text = `$ deploy\nusing ${TOKEN}\n${KEY}\ndone\n`;
    const { file, policy } = await terminalFile(text);
    const copy = await readSpillForCopy(file, policy, 8 * 1024 * 1024, 'run_in_terminal');
    assert.equal(copy.content.length, Buffer.byteLength(text), 'lengths and offsets unchanged');
    const shown = copy.content.toString('utf8');
    assert.ok(!shown.includes(TOKEN.slice(4)) && BODY.every((line) => !shown.includes(line)), shown);
    assert.match(shown, /using ghp_\*{36}\n-----BEGIN PRIVATE KEY-----\n\*{64}/);
    assert.equal(copy.masked, 2);
    // The same file through read_file_page: the same bytes.
    const page = await readFilePageText({ path: file, byteOffset: 0, maxBytes: 4096 }, policy);
    assert.ok(page.includes(shown.slice(0, 200)), page);
  });

  it('a UTF-16 file (as PowerShell 5 writes): masked on its characters, the NULs and every offset kept', async () => {
    const text = `\ufeffPS> gh auth token\r\n${TOKEN}\r\nAuthorization: Bearer ${'Tk9'.repeat(12)}\r\n`;
    const { file, policy } = await terminalFile('');
    await fs.writeFile(file, Buffer.from(text, 'utf16le'));
    const copy = await readSpillForCopy(file, policy, 8 * 1024 * 1024, 'run_in_terminal');
    assert.equal(copy.content.length, Buffer.byteLength(text, 'utf16le'));
    const shown = copy.content.toString('utf16le');
    assert.ok(!shown.includes(TOKEN.slice(4)) && !shown.includes('Tk9Tk9Tk9'), shown);
    assert.match(shown, /ghp_\*{36}\r\nAuthorization: Bearer \*{36}/);
  });

  it('past the copy cap: a key the gap cuts (its BEGIN line dropped) is masked in the tail up to its END line', async () => {
    const cap = 64 * 1024;
    // A key longer than the tail's half of the cap: its BEGIN line falls in the dropped bytes.
    const body = Array.from({ length: 600 }, (_, i) => `${BODY[0].slice(0, 50)}${String(i).padStart(14, '3')}`);
    const text = `${'filler line ok\n'.repeat(6000)}-----BEGIN PRIVATE KEY-----\n${body.join('\n')}\n-----END PRIVATE KEY-----\n${'after ok\n'.repeat(100)}`;
    const { file, policy } = await terminalFile(text);
    const copy = await readSpillForCopy(file, policy, cap, 'run_in_terminal');
    assert.equal(copy.meta.complete, false);
    const shown = copy.content.toString('utf8');
    const tail = shown.slice(copy.meta.gapOffset);
    assert.ok(!tail.includes('-----BEGIN'), 'the BEGIN line is in the dropped bytes');
    const inTail = body.filter((line) =>
      Buffer.from(text)
        .subarray(-cap / 2)
        .includes(line),
    );
    assert.ok(inTail.length > 400, `${inTail.length} body lines lie in the tail kept`);
    assert.deepEqual(
      inTail.filter((line) => shown.includes(line)),
      [],
    );
    assert.match(tail, /\*{64}\n-----END PRIVATE KEY-----\n/);
  });
});
