// read_file_page in a real host: any line of a large file, a very long line paged by byte offset,
// sensitive files refused, and a symlink out of the workspace refused unless the user allows it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { invoke, invokeError, recallApi, scratchDir, workspaceDir } from './helpers/host';

interface FilePageHeader {
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  totalBytes: number;
  totalLines: number;
  hasMore: boolean;
  endsMidLine: boolean;
  nextByteOffset: number | null;
}

async function readFilePage(input: object): Promise<{ header: FilePageHeader; text: string }> {
  const { text } = await invoke('read_file_page', input);
  const body = text.indexOf('\n---\n');
  assert.ok(body > 0, `no page body in:\n${text.slice(0, 500)}`);
  return { header: JSON.parse(text.slice(0, text.indexOf('\n'))) as FilePageHeader, text: text.slice(body + 5) };
}

const line = (n: number) => `line ${String(n).padStart(6, '0')} of the big log, some payload`;

describe('read_file_page', function () {
  this.timeout(120_000);
  let ws: string;
  const created: string[] = [];
  const create = (relative: string, content: string | Buffer): string => {
    const file = path.join(ws, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    created.push(relative.split('/')[0]);
    return relative;
  };

  before(async () => {
    await recallApi();
    ws = workspaceDir();
  });
  after(() => {
    for (const top of new Set(created)) fs.rmSync(path.join(ws, top), { recursive: true, force: true });
  });

  it('finds line 150,000 of a 200,000-line file', async () => {
    const file = create('big.log', Array.from({ length: 200_000 }, (_, i) => line(i + 1)).join('\n') + '\n');
    const { header, text } = await readFilePage({ path: file, line: 150_000 });
    assert.ok(text.startsWith(`${line(150_000)}\n${line(150_001)}\n`), text.slice(0, 120));
    assert.equal(header.startLine, 150_000);
    assert.equal(header.totalLines, 200_000);
    assert.equal(header.startByte, 149_999 * (line(1).length + 1));
    assert.ok(Buffer.byteLength(text) <= 4096);
    const last = await readFilePage({ path: file, line: 200_000 });
    assert.equal(last.text, `${line(200_000)}\n`);
    assert.equal(last.header.hasMore, false);
  });

  it('pages through a single 2 MiB line by byte offset, never splitting a character', async () => {
    // 2-, 3- and 4-byte characters, so page ends fall inside characters unless the pager avoids them.
    const unit = 'abcdé漢字🙂-'; // 17 bytes: 漢 spans bytes 6 to 9
    const bytes = Buffer.from(unit.repeat(Math.ceil((2 * 1024 * 1024) / Buffer.byteLength(unit))));
    const file = create('one-line.txt', bytes);
    // Each page through the host costs a round trip to the workbench (~25 ms here), so read the
    // start, a stretch in the middle and the end rather than all ~520 pages.
    const pageFrom = async (from: number, count: number) => {
      let offset = from;
      let text = '';
      for (let i = 0; i < count; i++) {
        const page = await readFilePage({ path: file, byteOffset: offset });
        assert.equal(page.header.startByte, offset);
        assert.equal(page.header.startLine, 1);
        assert.equal(page.header.totalBytes, bytes.length);
        text += page.text;
        if (!page.header.hasMore) return { text, end: true, offset: page.header.endByte };
        assert.equal(page.header.endsMidLine, true);
        offset = page.header.nextByteOffset!;
      }
      return { text, end: false, offset };
    };
    const head = await pageFrom(0, 8);
    assert.ok(head.offset >= 8 * 4090, `8 pages reached byte ${head.offset}`);
    assert.equal(head.text, bytes.subarray(0, head.offset).toString(), 'the pages put together are the line');

    const middle = 17 * 61_000 + 7; // inside 漢
    const message = await invokeError('read_file_page', { path: file, byteOffset: middle });
    assert.match(message, /MID_CHARACTER_OFFSET/);
    assert.match(message, new RegExp(`spans bytes ${middle - 1} to ${middle + 2}`));
    const stretch = await pageFrom(middle - 1, 4);
    assert.equal(stretch.text, bytes.subarray(middle - 1, stretch.offset).toString());

    const tail = await pageFrom(bytes.length - 17 * 600, 10);
    assert.equal(tail.end, true, 'the last page says hasMore: false');
    assert.equal(tail.offset, bytes.length);
    assert.equal(tail.text, bytes.subarray(bytes.length - 17 * 600).toString());
  });

  describe('refuses sensitive files', () => {
    const SECRET = 'S3CR3T-VALUE-42';
    for (const [name, content] of [
      ['.env', `API_KEY=${SECRET}\n`],
      ['.ssh/id_rsa', `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`],
      ['.npmrc', `//registry.npmjs.org/:_authToken=${SECRET}\n`],
      ['config/.env.production', `DB_PASSWORD=${SECRET}\n`],
    ] as const) {
      it(name, async () => {
        const message = await invokeError('read_file_page', { path: create(name, content) });
        assert.match(message, /read_file_page failed \(REFUSED\): .* is a sensitive file/);
        assert.ok(!message.includes(SECRET), 'the refusal does not leak the content');
      });
    }

    it('but reads .env.example and an .npmrc without credentials', async () => {
      assert.match((await readFilePage({ path: create('.env.example', 'API_KEY=\n') })).text, /API_KEY=/);
      fs.rmSync(path.join(ws, '.npmrc'), { force: true });
      assert.match((await readFilePage({ path: create('.npmrc', 'save-exact=true\n') })).text, /save-exact/);
    });
  });

  describe('a symlink inside the workspace to a file outside it', () => {
    const setting = 'readFilePage.allowOutsideWorkspace';
    let outside: string;
    before(() => {
      outside = scratchDir('outside');
      fs.writeFileSync(path.join(outside, 'notes.txt'), 'outside the workspace\n');
      fs.symlinkSync(path.join(outside, 'notes.txt'), path.join(ws, 'link-out.txt'));
      created.push('link-out.txt');
    });
    after(async () => {
      await vscode.workspace.getConfiguration('toolOutputRecall').update(setting, undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(outside, { recursive: true, force: true });
    });

    it('is refused by default', async () => {
      const message = await invokeError('read_file_page', { path: 'link-out.txt' });
      assert.match(message, /read_file_page failed \(REFUSED\): .*outside the workspace folders/);
      assert.match(message, /allowOutsideWorkspace/);
    });

    it('is read when the setting allows it, and refused again once it is restored', async () => {
      const config = () => vscode.workspace.getConfiguration('toolOutputRecall');
      await config().update(setting, true, vscode.ConfigurationTarget.Global);
      assert.equal(config().get(setting), true);
      assert.equal((await readFilePage({ path: 'link-out.txt' })).text, 'outside the workspace\n');
      await config().update(setting, undefined, vscode.ConfigurationTarget.Global);
      assert.match(await invokeError('read_file_page', { path: 'link-out.txt' }), /outside the workspace folders/);
    });
  });
});
