import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRecallError, type RecallErrorCode } from '../../src/core/errors';
import { LINE_INDEX_STRIDE, clearLineIndexCache, lineIndexStats } from '../../src/core/files/lineIndex';
import { CHEAP_COUNT_BYTES, readFilePage, type FilePage, type FilePageOptions } from '../../src/core/files/filePager';
import { resolveSettings } from '../../src/core/settings';
import { invokeTool } from '../../src/core/tools/registry';

const rejects =
  (code: RecallErrorCode, pattern?: RegExp) =>
  (error: unknown): boolean => {
    assert.ok(isRecallError(error, code), `expected ${code}, got ${String(error)}`);
    if (pattern) assert.match(error.message, pattern);
    return true;
  };

const wholeDecode = (bytes: Uint8Array): string => new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);

/** The arguments of the call a `continuation` spells out. */
function nextCall(page: FilePage): FilePageOptions & { path: string } {
  const found = /read_file_page (\{.*?\})(?: |$)/.exec(page.continuation);
  assert.ok(found, `continuation has no call: ${page.continuation}`);
  return JSON.parse(found[1]) as FilePageOptions & { path: string };
}

/** Reads a file start to end by following `continuation`, checking each page's invariants. */
async function follow(file: string, maxBytes?: number, first: FilePageOptions = {}): Promise<{ text: string; pages: FilePage[] }> {
  const pages: FilePage[] = [];
  let options: FilePageOptions = { ...first, maxBytes };
  let expectedStart = -1;
  for (;;) {
    const page = await readFilePage(file, options);
    if (expectedStart >= 0) assert.equal(page.startByte, expectedStart, 'a page starts where the previous one ended');
    assert.equal(page.endByte, page.nextByteOffset);
    assert.ok(page.endByte >= page.startByte);
    if (page.hasMore) assert.ok(page.endByte > page.startByte, 'a page with more to come makes progress');
    pages.push(page);
    if (!page.hasMore) {
      assert.match(page.continuation, /^None: this page reaches the end/);
      break;
    }
    const next = nextCall(page);
    assert.equal(next.path, file);
    assert.equal(next.line !== undefined, !page.endsMidLine, 'continue by line exactly when the page ends a line');
    if (next.line !== undefined) assert.equal(next.line, page.endLine + 1);
    else assert.equal(next.byteOffset, page.endByte);
    options = { line: next.line, byteOffset: next.byteOffset, maxBytes };
    expectedStart = page.endByte;
  }
  return { text: pages.map((page) => page.text).join(''), pages };
}

let dir: string;
let counter = 0;
async function write(content: string | Uint8Array, name = `file-${counter++}.txt`): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, content);
  return file;
}

before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recall-filepager-'));
});
after(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => clearLineIndexCache());

describe('readFilePage: a 200,000-line file', () => {
  const LINES = 200_000;
  // Lines of varying length so no offset can be guessed by arithmetic.
  const lineText = (n: number): string => `line ${n} ${'x'.repeat(n % 37)}|${n % 7 === 0 ? ' é漢😀' : ''}`;
  let file: string;
  const offsets: number[] = [0];

  before(async () => {
    const parts: string[] = [];
    let offset = 0;
    for (let n = 1; n <= LINES; n++) {
      const line = `${lineText(n)}\n`;
      parts.push(line);
      offset += Buffer.byteLength(line);
      offsets.push(offset); // offsets[n] = start of line n + 1
    }
    file = await write(parts.join(''), 'big.txt');
  });

  it('finds line 150,000 exactly, far past the old 256 KiB truncation', async () => {
    const page = await readFilePage(file, { line: 150_000 });
    assert.ok(page.text.startsWith(`${lineText(150_000)}\n${lineText(150_001)}\n`));
    assert.equal(page.startLine, 150_000);
    assert.equal(page.startByte, offsets[150_000 - 1]);
    assert.ok(page.startByte > 256 * 1024);
    assert.equal(page.totalBytes, offsets[LINES]);
    // Whole lines only: the page ends after a '\n', and endLine is the last line in it.
    assert.ok(page.text.endsWith('\n'));
    assert.equal(page.endLine, 150_000 + page.text.split('\n').length - 2);
    assert.equal(page.endByte, offsets[page.endLine]);
    assert.ok(page.endByte - page.startByte <= 4096);
    assert.equal(page.endsMidLine, false);
    assert.equal(page.hasMore, true);
    // Fewer than CHEAP_COUNT_BYTES follow the page, so the rest was counted.
    assert.ok(page.totalBytes - page.endByte <= CHEAP_COUNT_BYTES);
    assert.equal(page.totalLines, LINES);
    assert.equal(page.continuation, `read_file_page {"path":${JSON.stringify(file)},"line":${page.endLine + 1}}`);
  });

  it('leaves totalLines out rather than scanning megabytes just to count', async () => {
    const page = await readFilePage(file, { line: 1 });
    assert.ok(page.totalBytes - page.endByte > CHEAP_COUNT_BYTES);
    assert.equal(page.totalLines, undefined);
    assert.ok(lineIndexStats().bytesScanned >= 0);
  });

  it('finds it again from the line index without rescanning the file', async () => {
    await readFilePage(file, { line: 150_000 });
    let before = lineIndexStats().bytesScanned;
    const again = await readFilePage(file, { line: 150_000 });
    assert.equal(lineIndexStats().bytesScanned - before, 0, 'the page start is a landmark');
    assert.ok(again.text.startsWith(lineText(150_000)));

    before = lineIndexStats().bytesScanned;
    const near = await readFilePage(file, { line: 149_000 });
    const scanned = lineIndexStats().bytesScanned - before;
    assert.ok(near.text.startsWith(`${lineText(149_000)}\n`));
    assert.equal(near.startByte, offsets[149_000 - 1]);
    // From the checkpoint at line 36·4096 + 1 = 147,457: at most one stride of lines.
    assert.ok(scanned <= offsets[149_000] - offsets[147_456] + 256 * 1024, `scanned ${scanned} bytes`);
    assert.ok(scanned < offsets[149_000] / 4);

    // Following the continuation scans nothing either.
    before = lineIndexStats().bytesScanned;
    const next = await readFilePage(file, nextCall(again));
    assert.equal(lineIndexStats().bytesScanned - before, 0);
    assert.equal(next.startLine, again.endLine + 1);
    assert.ok(next.text.startsWith(`${lineText(again.endLine + 1)}\n`));
  });

  it('reads the last line, reports the line count, and rejects the line after it', async () => {
    const last = await readFilePage(file, { line: LINES });
    assert.equal(last.text, `${lineText(LINES)}\n`);
    assert.equal(last.hasMore, false);
    assert.equal(last.totalLines, LINES);
    assert.equal(last.endLine, LINES);
    await assert.rejects(readFilePage(file, { line: LINES + 1 }), rejects('OFFSET_OUT_OF_RANGE', /which has 200000 lines.*"line":200000/));
    clearLineIndexCache();
    await assert.rejects(readFilePage(file, { line: LINES + 1 }), rejects('OFFSET_OUT_OF_RANGE', /which has 200000 lines/));
    await assert.rejects(readFilePage(file, { line: 10_000_000 }), rejects('OFFSET_OUT_OF_RANGE', /which has 200000 lines/));
  });

  it('knows the line of a byte offset deep in the file', async () => {
    const page = await readFilePage(file, { byteOffset: offsets[123_456] + 3, maxBytes: 10 });
    assert.equal(page.startLine, 123_457);
    assert.equal(page.text, lineText(123_457).slice(3, 13));
    assert.equal(page.endsMidLine, true);
    assert.equal(nextCall(page).byteOffset, page.endByte);
  });

  it('keeps the checkpoints exact (every sampled line found where it is)', async () => {
    for (const n of [1, 2, LINE_INDEX_STRIDE, LINE_INDEX_STRIDE + 1, LINE_INDEX_STRIDE * 3 + 1, 99_999, 150_000, 4_097, 199_999]) {
      const page = await readFilePage(file, { line: n, maxBytes: 200 });
      assert.equal(page.startByte, offsets[n - 1], `line ${n}`);
      assert.ok(page.text.startsWith(lineText(n)), `line ${n}`);
    }
  });

  it('does not trust the index of a file that changed', async () => {
    const copy = await write(await fs.readFile(file), 'changing.txt');
    const page = await readFilePage(copy, { line: 150_000 });
    assert.ok(page.text.startsWith(lineText(150_000)));
    await fs.writeFile(copy, `inserted\n${await fs.readFile(file, 'utf8')}`);
    const after = await readFilePage(copy, { line: 150_000 });
    assert.ok(after.text.startsWith(lineText(149_999)));
  });
});

describe('readFilePage: long lines', () => {
  it('pages a single 2 MiB line by byteOffset; the pages concatenate to the line', async () => {
    let line = '';
    for (let i = 0; line.length < 2 * 1024 * 1024; i++) line += `${i.toString(36)},`;
    line = line.slice(0, 2 * 1024 * 1024);
    const file = await write(line);
    const first = await readFilePage(file, {});
    assert.equal(first.text.length, 4096);
    assert.equal(first.endsMidLine, true);
    assert.equal(
      first.continuation,
      `read_file_page {"path":${JSON.stringify(file)},"byteOffset":4096} (line 1 continues; pass byteOffset, not line)`,
    );
    const before = lineIndexStats().bytesScanned;
    const { text, pages } = await follow(file);
    assert.equal(pages.length, 512);
    assert.equal(text, line);
    assert.ok(pages.every((page) => page.startLine === 1 && page.endLine === 1));
    assert.equal(pages[pages.length - 1].totalLines, 1);
    // Each continuation starts at a landmark the previous page left: no rescanning of the line.
    assert.ok(lineIndexStats().bytesScanned - before < 4 * 1024 * 1024, 'continuations do not rescan from the line start');
  });

  it('moves from a long line back to whole lines', async () => {
    const long = 'L'.repeat(10_000);
    const file = await write(`head\n${long}\ntail 1\ntail 2\n`);
    const first = await readFilePage(file, { line: 1 });
    assert.equal(first.text, 'head\n', 'a page that holds a whole line ends after it');
    assert.equal(first.continuation, `read_file_page {"path":${JSON.stringify(file)},"line":2}`);
    const second = await readFilePage(file, { line: 2 });
    assert.equal(second.text, 'L'.repeat(4096));
    assert.equal(second.endsMidLine, true);
    const third = await readFilePage(file, nextCall(second));
    assert.equal(third.startLine, 2);
    const fourth = await readFilePage(file, nextCall(third));
    assert.equal(fourth.text, `${'L'.repeat(10_000 - 8192)}\ntail 1\ntail 2\n`);
    assert.equal(fourth.startLine, 2);
    assert.equal(fourth.endLine, 4);
    assert.equal(fourth.hasMore, false);
    assert.equal(fourth.totalLines, 4);
  });

  it('prefers whole lines: a page ends at the last line end that fits', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${String(i + 1).padStart(3, '0')} ${'-'.repeat(95)}\n`); // 100 bytes each
    const file = await write(lines.join(''));
    const page = await readFilePage(file, { line: 3 });
    assert.equal(page.text, lines.slice(2, 42).join(''));
    assert.equal(page.endLine, 42);
    const small = await readFilePage(file, { line: 3, maxBytes: 250 });
    assert.equal(small.text, lines.slice(2, 4).join(''));
    const exact = await readFilePage(file, { line: 3, maxBytes: 300 });
    assert.equal(exact.text, lines.slice(2, 5).join(''), 'a line ending exactly at maxBytes fits');
    const tiny = await readFilePage(file, { line: 3, maxBytes: 7 });
    assert.equal(tiny.text, '003 ---');
    assert.equal(tiny.endsMidLine, true);
  });
});

describe('readFilePage: UTF-8', () => {
  const cjkEmoji = '漢字かな交じり文😀👍🏽 English ' + 'é'.repeat(3) + '\n' + '中文😀'.repeat(150) + '\n🎉 end';

  it('never splits a character (CJK, emoji) at any page size', async () => {
    const file = await write(cjkEmoji);
    const bytes = Buffer.from(cjkEmoji);
    for (const maxBytes of [1, 2, 3, 4, 5, 6, 7, 10, 64, 1000, 4096]) {
      const { text, pages } = await follow(file, maxBytes);
      assert.equal(text, cjkEmoji, `maxBytes ${maxBytes}`);
      for (const page of pages) {
        assert.ok(!page.text.includes('\uFFFD'), `maxBytes ${maxBytes}: a page split a character`);
        assert.deepEqual(Buffer.from(page.text), bytes.subarray(page.startByte, page.endByte));
        assert.ok(page.text.length > 0 || !page.hasMore);
        if (page.endByte - page.startByte > maxBytes) {
          // Only a single character bigger than the page may exceed it.
          assert.equal([...page.text].length, 1, `maxBytes ${maxBytes}`);
        }
      }
    }
  });

  it('returns one whole character when maxBytes is smaller than it', async () => {
    const file = await write('😀x');
    const page = await readFilePage(file, { maxBytes: 1 });
    assert.equal(page.text, '😀');
    assert.equal(page.endByte, 4);
    assert.equal(nextCall(page).byteOffset, 4);
  });

  it('rejects an offset inside a character, naming the boundaries either side', async () => {
    const file = await write('a😀b');
    for (const offset of [2, 3, 4]) {
      await assert.rejects(readFilePage(file, { byteOffset: offset }), (error: unknown) => {
        assert.ok(isRecallError(error, 'MID_CHARACTER_OFFSET'));
        assert.deepEqual(error.details, { before: 1, after: 5 });
        assert.match(error.message, /spans bytes 1 to 5/);
        assert.ok(error.message.includes(`read_file_page {"path":${JSON.stringify(file)},"byteOffset":1}`));
        assert.ok(error.message.includes(`{"path":${JSON.stringify(file)},"byteOffset":5}`));
        return true;
      });
    }
    assert.equal((await readFilePage(file, { byteOffset: 1 })).text, '😀b');
    assert.equal((await readFilePage(file, { byteOffset: 5 })).text, 'b');
  });

  it('decodes invalid UTF-8 with U+FFFD exactly as one TextDecoder pass over the whole file', async () => {
    const nasty = Buffer.from([
      0x61,
      0xe2,
      0x82,
      0x0a, // truncated 3-byte sequence before '\n'
      0xf0,
      0x9f,
      0x98,
      0x62, // truncated 4-byte sequence
      0x80,
      0x80,
      0xbf, // stray continuations
      0xc0,
      0xaf,
      0xed,
      0xa0,
      0x80, // overlong, surrogate
      0xf4,
      0x90,
      0x80,
      0x80, // above U+10FFFF
      0xe6,
      0xbc,
      0xa2,
      0x0d,
      0x0a, // 漢 CRLF
      0xf0,
      0x9f,
      0x98,
      0x80,
      0xff,
      0xfe,
      0xf0,
      0x9f, // emoji, bad bytes, truncated at EOF
    ]);
    const file = await write(nasty);
    for (let maxBytes = 1; maxBytes <= 12; maxBytes++) {
      const { text } = await follow(file, maxBytes);
      assert.equal(text, wholeDecode(nasty), `maxBytes ${maxBytes}`);
    }
    // Every offset the decoder treats as a boundary is accepted; the others are rejected.
    for (let offset = 0; offset <= nasty.length; offset++) {
      const expected = wholeDecode(nasty.subarray(0, offset)) + wholeDecode(nasty.subarray(offset)) === wholeDecode(nasty);
      const result = await readFilePage(file, { byteOffset: offset }).then(
        () => true,
        (error: unknown) => {
          assert.ok(isRecallError(error, 'MID_CHARACTER_OFFSET'), String(error));
          return false;
        },
      );
      if (result) assert.ok(expected, `offset ${offset} accepted but splits a unit`);
    }
  });

  it('pages random binary so the pages concatenate to the whole decode', async () => {
    let seed = 12345;
    const random = Buffer.alloc(12_000);
    for (let i = 0; i < random.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      random[i] = seed >>> 24;
    }
    const file = await write(random);
    for (const maxBytes of [3, 100, 4096]) {
      const { text } = await follow(file, maxBytes);
      assert.equal(text, wholeDecode(random), `maxBytes ${maxBytes}`);
    }
  });
});

/** read_file_page through the registry, as a model calls it: the schema check and the spec's validate first. */
async function callTool(input: Record<string, unknown>): Promise<string> {
  const context = {
    store: () => Promise.reject(new Error('read_file_page needs no store')),
    settings: resolveSettings(() => undefined),
    folders: [os.tmpdir()],
    signal: new AbortController().signal,
    log: { info() {}, warn() {}, error() {} },
  };
  const run = await invokeTool('read_file_page', input, context);
  assert.equal(run.isError, true, run.text);
  return run.text;
}

describe('readFilePage: arguments and edges', () => {
  it('rejects line and byteOffset together at the tool edge, saying which to use', async () => {
    const file = await write('a\nb\n');
    assert.match(
      await callTool({ path: file, line: 2, byteOffset: 0 }),
      /^read_file_page failed \(INVALID_ARGUMENT\): Pass either line or byteOffset, not both.*"line":2.*"byteOffset":0/,
    );
  });

  it('reads from line 1 when neither is given', async () => {
    const file = await write('first\nsecond\n');
    const page = await readFilePage(file);
    assert.equal(page.text, 'first\nsecond\n');
    assert.equal(page.startLine, 1);
    assert.equal(page.endLine, 2);
    assert.equal(page.totalLines, 2);
    assert.equal(page.hasMore, false);
  });

  it('validates line, byteOffset and maxBytes once, at the tool edge (the pager only clamps)', async () => {
    const file = await write('abc\n');
    for (const maxBytes of [0, -1, 1.5, '10', null, 4097])
      assert.match(
        await callTool({ path: file, maxBytes }),
        /^read_file_page failed \(INVALID_ARGUMENT\): the input property "maxBytes" must be an integer ≥ 1 and ≤ 4096; got /,
      );
    for (const line of [0, -3, 2.5, '7', null])
      assert.match(
        await callTool({ path: file, line }),
        /^read_file_page failed \(INVALID_ARGUMENT\): the input property "line" must be an integer ≥ 1; got /,
      );
    for (const byteOffset of [-1, 0.5, '0'])
      assert.match(
        await callTool({ path: file, byteOffset }),
        /^read_file_page failed \(INVALID_ARGUMENT\): the input property "byteOffset" must be an integer ≥ 0; got /,
      );
    assert.match(
      await callTool({ path: file, byteOffset: 2 ** 60 }),
      /^read_file_page failed \(INVALID_ARGUMENT\): byteOffset must be a non-negative integer byte offset/,
    );
    assert.match(
      await callTool({ path: file, line: 2 ** 60 }),
      /^read_file_page failed \(INVALID_ARGUMENT\): line must be a 1-based integer line number/,
    );
  });

  it('clamps maxBytes above 4096', async () => {
    const file = await write('y'.repeat(10_000));
    const page = await readFilePage(file, { maxBytes: 1_000_000 });
    assert.equal(page.text.length, 4096);
  });

  it('handles out-of-range offsets and lines', async () => {
    const file = await write('a\nb\n');
    const end = await readFilePage(file, { byteOffset: 4 });
    assert.equal(end.text, '');
    assert.equal(end.hasMore, false);
    assert.equal(end.totalLines, 2);
    assert.equal(end.startLine, 2);
    await assert.rejects(
      readFilePage(file, { byteOffset: 5 }),
      rejects('OFFSET_OUT_OF_RANGE', /past the end .* which has 4 bytes \(valid byte offsets: 0 to 4\)/),
    );
    await assert.rejects(readFilePage(file, { line: 3 }), rejects('OFFSET_OUT_OF_RANGE', /which has 2 lines .*"line":2/));
    assert.equal((await readFilePage(file, { line: 2 })).text, 'b\n');
  });

  it('reads an empty file', async () => {
    const file = await write('');
    const page = await readFilePage(file);
    assert.deepEqual(
      {
        text: page.text,
        startLine: page.startLine,
        endLine: page.endLine,
        startByte: page.startByte,
        endByte: page.endByte,
        totalBytes: page.totalBytes,
        totalLines: page.totalLines,
        hasMore: page.hasMore,
        endsMidLine: page.endsMidLine,
      },
      { text: '', startLine: 1, endLine: 1, startByte: 0, endByte: 0, totalBytes: 0, totalLines: 0, hasMore: false, endsMidLine: false },
    );
    assert.equal((await readFilePage(file, { byteOffset: 0 })).text, '');
    await assert.rejects(readFilePage(file, { line: 2 }), rejects('OFFSET_OUT_OF_RANGE', /empty \(0 lines/));
    await assert.rejects(readFilePage(file, { byteOffset: 1 }), rejects('OFFSET_OUT_OF_RANGE'));
  });

  it('reads a file without a trailing newline', async () => {
    const file = await write('a\nb\nlast');
    const page = await readFilePage(file, { line: 3 });
    assert.equal(page.text, 'last');
    assert.equal(page.totalLines, 3);
    assert.equal(page.endsMidLine, false, 'the end of the file is not the middle of a line');
    await assert.rejects(readFilePage(file, { line: 4 }), rejects('OFFSET_OUT_OF_RANGE', /which has 3 lines/));
    const small = await readFilePage(file, { line: 3, maxBytes: 2 });
    assert.equal(small.text, 'la');
    assert.equal(small.endsMidLine, true);
    assert.equal((await readFilePage(file, nextCall(small))).text, 'st');
  });

  it('pages CRLF files by whole lines, keeping the \\r', async () => {
    const content = 'one\r\ntwo\r\nthree\r\n';
    const file = await write(content);
    const page = await readFilePage(file, { maxBytes: 12 });
    assert.equal(page.text, 'one\r\ntwo\r\n');
    assert.equal(page.endLine, 2);
    assert.equal(nextCall(page).line, 3);
    const rest = await readFilePage(file, { line: 3 });
    assert.equal(rest.text, 'three\r\n');
    assert.equal(rest.totalLines, 3);
    for (const maxBytes of [1, 4, 5, 6]) assert.equal((await follow(file, maxBytes)).text, content);
  });

  it('reports a missing file and a directory', async () => {
    await assert.rejects(readFilePage(path.join(dir, 'missing.txt')), rejects('NOT_FOUND', /does not exist/));
    await assert.rejects(readFilePage(dir), rejects('INVALID_ARGUMENT', /is a directory/));
  });

  it('writes displayPath into continuations and errors', async () => {
    const file = await write('a\nb\nc\n');
    const page = await readFilePage(file, { maxBytes: 2, displayPath: 'src/a.txt' });
    assert.equal(page.continuation, 'read_file_page {"path":"src/a.txt","line":2}');
    await assert.rejects(readFilePage(file, { line: 9, displayPath: 'src/a.txt' }), rejects('OFFSET_OUT_OF_RANGE', /src\/a\.txt/));
  });

  it('reports totalLines for a small file even when the page stops early', async () => {
    const file = await write('x\n'.repeat(5000));
    const page = await readFilePage(file, { line: 10, maxBytes: 10 });
    assert.equal(page.hasMore, true);
    assert.equal(page.totalLines, 5000);
  });

  it('keeps a bounded number of file indexes', async () => {
    for (let i = 0; i < 20; i++) await readFilePage(await write(`f${i}\n`));
    assert.ok(lineIndexStats().files <= 8);
  });
});
