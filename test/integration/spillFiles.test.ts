// A chat's saved oversized tool result ("spill file") in a real host: VS Code 1.139.1's chat writes
// such a result to `copilot-tool-output-<ms>-<id>.txt` directly in the temp folder (the rule is in
// src/core/files/spillFiles.ts). Through vscode.lm.invokeTool, as a model calls them: one
// search_tool_output {path, pattern} finds a field near the end of a 50 MB file, one read_file_page
// {path, byteOffset} reads its line, a CJK match has its exact UTF-8 byte offset; a spill-named symlink
// that leads elsewhere, and a spill-named file below the temp folder, are refused.
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { firstLineJson, invoke, invokeError, recallApi, scratchDir, workspaceDir } from './helpers/host';
import { testLog } from './log';

interface SearchSummary {
  path: string;
  matches: number;
  truncated: boolean;
  totalBytes: number;
}

interface FileMatch {
  offset: number;
  lineOffset: number;
  line: number;
  text: string;
}

interface PageHeader {
  startLine: number;
  startByte: number;
  endByte: number;
  totalBytes: number;
}

/** A search_tool_output result over a file: the summary line, then one JSON line per match, then advice. */
function parseSearch(text: string): { summary: SearchSummary; matches: FileMatch[]; advice: string } {
  const lines = text.split('\n');
  const summary = firstLineJson<SearchSummary>(text);
  return {
    summary,
    matches: lines.slice(1, 1 + summary.matches).map((l) => JSON.parse(l) as FileMatch),
    advice: lines[1 + summary.matches],
  };
}

/** read_file_page's header and page text. */
async function readPage(input: object): Promise<{ header: PageHeader; text: string }> {
  const { text } = await invoke('read_file_page', input);
  const body = text.indexOf('\n---\n');
  assert.ok(body > 0, `no page body in:\n${text.slice(0, 500)}`);
  return { header: firstLineJson<PageHeader>(text), text: text.slice(body + 5) };
}

/** A name VS Code 1.139.1 gives a spill file (`copilot-tool-output-<10+ digits>-<alnum>.txt`), unique per call. */
const spillName = (): string => `copilot-tool-output-${Date.now()}${process.pid}-${randomBytes(4).toString('hex')}.txt`;

const MB = 1000 * 1000;

describe("spill files: a chat's saved oversized tool result, searched and paged", function () {
  this.timeout(180_000);
  /** The extension host's temp folder, symlinks resolved: where a spill file must lie. */
  let tmp: string;
  const created: string[] = [];

  // The 50 MB spill file: repeated log lines, then (near the end) a unique field and a CJK line.
  const line = 'INFO 2024-05-18T08:00:00.000Z worker[7] request ok bytes=1234 user=alice\n';
  const lines = Math.ceil((50 * MB) / line.length);
  const field = `settlement_ref=ZX9-${randomBytes(6).toString('hex').toUpperCase()}`;
  const fieldLine = `FATAL ${field} total=1\n`;
  const cjk = '数据库连接已关闭';
  const cjkLine = `ERROR ${cjk}: pool drained\n`;
  const trailer = 'INFO shutting down\n'.repeat(200);
  const fieldLineOffset = line.length * lines; // the lines before it are ASCII
  const cjkLineOffset = fieldLineOffset + Buffer.byteLength(fieldLine);
  let spill: string;

  before(async () => {
    await recallApi();
    assert.notEqual(
      vscode.workspace.getConfiguration('toolOutputRecall').get('readFilePage.allowOutsideWorkspace'),
      true,
      'these tests need files outside the workspace refused (the default)',
    );
    tmp = fs.realpathSync(os.tmpdir());
    const workspace = fs.realpathSync(workspaceDir());
    assert.ok(!tmp.startsWith(workspace + path.sep) && !workspace.startsWith(tmp + path.sep), `${tmp} and ${workspace} must not nest`);
    spill = path.join(tmp, spillName());
    created.push(spill);
    const started = performance.now();
    const fd = fs.openSync(spill, 'w');
    try {
      // Written in 1 MB blocks of whole lines, so the host never holds the file at once.
      const perBlock = Math.floor(MB / line.length);
      const block = Buffer.from(line.repeat(perBlock));
      let written = 0;
      for (; written + perBlock <= lines; written += perBlock) fs.writeSync(fd, block);
      fs.writeSync(fd, Buffer.from(line.repeat(lines - written) + fieldLine + cjkLine + trailer));
    } finally {
      fs.closeSync(fd);
    }
    testLog(`    wrote ${path.basename(spill)} (${fs.statSync(spill).size} bytes) in ${Math.round(performance.now() - started)} ms`);
  });

  after(() => {
    for (const file of created) fs.rmSync(file, { recursive: true, force: true });
  });

  it('one search_tool_output {path, pattern} call finds a field near the end of 50 MB; one read_file_page {path, byteOffset} reads its line', async () => {
    const size = fs.statSync(spill).size;
    assert.ok(size > 50 * MB, `${size} bytes`);
    const started = performance.now();
    const { text } = await invoke('search_tool_output', { path: spill, pattern: field });
    const searchMs = performance.now() - started;
    testLog(`    search_tool_output over ${size} bytes took ${Math.round(searchMs)} ms`);
    const { summary, matches, advice } = parseSearch(text);
    assert.deepEqual(summary, { path: spill, matches: 1, truncated: false, totalBytes: size });
    const [match] = matches;
    assert.equal(match.lineOffset, fieldLineOffset);
    assert.equal(match.offset, fieldLineOffset + fieldLine.indexOf(field));
    assert.equal(match.line, lines + 1);
    assert.equal(match.text, fieldLine.trimEnd());
    assert.ok(advice.includes(`read_file_page ${JSON.stringify({ path: spill, byteOffset: match.lineOffset })}`), advice);

    const readStarted = performance.now();
    const page = await readPage({ path: spill, byteOffset: match.lineOffset });
    testLog(`    read_file_page at byte ${match.lineOffset} took ${Math.round(performance.now() - readStarted)} ms`);
    assert.ok(page.text.startsWith(fieldLine), page.text.slice(0, 200));
    assert.equal(page.header.startByte, match.lineOffset);
    assert.equal(page.header.startLine, match.line);
    assert.equal(page.header.totalBytes, size);
  });

  it('finds the CJK line with its exact UTF-8 byte offset, literally and as an RE2 pattern', async () => {
    const literal = parseSearch((await invoke('search_tool_output', { path: spill, pattern: cjk })).text);
    assert.equal(literal.summary.matches, 1);
    const [match] = literal.matches;
    assert.equal(match.lineOffset, cjkLineOffset);
    assert.equal(match.offset, cjkLineOffset + Buffer.byteLength('ERROR '));
    assert.equal(match.line, lines + 2);
    assert.equal(match.text, cjkLine.trimEnd());
    // The bytes at that offset in the file are the pattern's UTF-8 encoding.
    const fd = fs.openSync(spill, 'r');
    const bytes = Buffer.alloc(Buffer.byteLength(cjk));
    try {
      fs.readSync(fd, bytes, 0, bytes.length, match.offset);
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(bytes.toString('utf8'), cjk);
    const regex = parseSearch((await invoke('search_tool_output', { path: spill, pattern: '\\p{Han}+已关闭', regex: true })).text);
    assert.deepEqual(regex.matches, literal.matches);
    const page = await readPage({ path: spill, byteOffset: match.offset, maxBytes: 64 });
    assert.ok(page.text.startsWith(`${cjk}: pool drained\n`), page.text);
  });

  it('refuses a spill-named symlink in the temp folder that leads to a file elsewhere', async () => {
    const elsewhere = scratchDir('spill-target');
    created.push(elsewhere);
    // The target is named like a spill file too: what counts is where the link leads.
    const target = path.join(elsewhere, spillName());
    fs.writeFileSync(target, 'SECRET-OUTSIDE-42 not a saved tool result\n');
    const link = path.join(tmp, spillName());
    created.push(link);
    fs.symlinkSync(target, link);
    const searched = await invokeError('search_tool_output', { path: link, pattern: 'SECRET' });
    assert.match(searched, /search_tool_output failed \(REFUSED\): .*outside the workspace folders/);
    const read = await invokeError('read_file_page', { path: link });
    assert.match(read, /read_file_page failed \(REFUSED\): .*outside the workspace folders/);
    for (const message of [searched, read]) assert.ok(!message.includes('SECRET-OUTSIDE-42'), 'the refusal does not leak the content');
  });

  it('refuses a spill-named file in a folder below the temp folder', async () => {
    const below = fs.mkdtempSync(path.join(tmp, 'spill-below-'));
    created.push(below);
    const nested = path.join(below, spillName());
    fs.writeFileSync(nested, 'FATAL in a subfolder\n');
    assert.match(await invokeError('search_tool_output', { path: nested, pattern: 'FATAL' }), /search_tool_output failed \(REFUSED\): /);
    assert.match(await invokeError('read_file_page', { path: nested }), /read_file_page failed \(REFUSED\): /);
  });
});
