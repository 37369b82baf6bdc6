import assert from 'node:assert/strict';
import { FIRST_KEPT, RECENT_KEPT, hashKey, rankNotable } from '../../src/core/notable/digest';
import { SCANS, classifyHit, type NotableKind } from '../../src/core/notable/patterns';
import { NotableScanner, TEXT_BYTES, scanNotable } from '../../src/core/notable/scanner';
import { clip, renderNotableBlock } from '../../src/core/notable/render';
import type { NotableDigest, NotableLine } from '../../src/core/types';
import { makeRng, seedFromEnv } from './helpers/prng';

/** The class scanNotable gives a single line, or undefined when it is not notable. */
function classOf(line: string, kind: NotableKind = 'command'): string | undefined {
  return scanNotable(Buffer.from(`${line}\n`), kind).lines[0]?.class;
}

const shape = (digest: NotableDigest) => digest.lines.map(({ class: cls, line, offset, count }) => ({ cls, line, offset, count }));

describe('notable lines: patterns', () => {
  it('finds errors, failures, exceptions, panics, assertions in command output', () => {
    for (const line of [
      'src/a.ts(3,5): error TS2304: Cannot find name "foo".',
      'ERROR [db] connection refused',
      'npm ERR! code ELIFECYCLE',
      'FAILED tests/test_x.py::test_add - assert 1 == 2',
      "TypeError: Cannot read properties of undefined (reading 'id')",
      'java.lang.NullPointerException: boom',
      'Traceback (most recent call last):',
      "thread 'main' panicked at src/main.rs:3:5",
      'make: *** [Makefile:3: all] Error 1',
      'not ok 3 - adds numbers',
      'Segmentation fault (core dumped)',
      'cat: /nope: No such file or directory',
      'fatal: not a git repository',
      'AssertionError: expected 2 to equal 3',
      '1234fatal: a stderr line glued to an unfinished stdout line',
      '2024-05-18 数据库连接错误: 连接被拒绝',
      'ファイルの保存に失敗しました',
      '요청 처리 중 오류 발생',
    ]) {
      assert.equal(classOf(line), 'error', line);
    }
  });

  it('tells warnings and summary lines (counts, totals, exit codes) from errors', () => {
    for (const line of [
      'warning: unused variable `x`',
      'WARN  [cache] slow',
      'DeprecationWarning: Buffer() is deprecated',
      '警告: 磁盘空间不足',
    ]) {
      assert.equal(classOf(line), 'warning', line);
    }
    for (const line of [
      'Tests:       3 failed, 97 passed, 100 total',
      '=== 2 failed, 10 passed in 0.52s ===',
      'test result: FAILED. 3 passed; 1 failed',
      'Found 0 errors.',
      'errors: 0',
      'no errors found',
      'exit code 2',
      'Total: 48213.07',
      'Build succeeded.',
      'Results: 12 of 12',
      '总计: 48213.07 元',
    ]) {
      assert.equal(classOf(line), 'summary', line);
    }
  });

  it('leaves ordinary lines, words inside words and names alone', () => {
    for (const line of [
      'INFO request served in 12 ms',
      'terrorism and mirrors',
      'handleError(request)', // a name, not "Error:"
      'errorHandler registered',
      'the results are in', // "results" only before ":" or "="
      'GET /api/failover-test 200',
      '用户登录成功',
    ]) {
      assert.equal(classOf(line), undefined, line);
    }
  });

  it('JSON: summary keys, error keys with a value, and not keys that only contain a stem', () => {
    const json = JSON.stringify(
      { items: [{ accountId: 3, status: 'ok' }], summary: { total: 2, errors: 0, numFailedTests: 1 }, error: 'boom', warnings: ['w'] },
      null,
      2,
    );
    const lines = scanNotable(Buffer.from(json), 'json').lines.map((line) => [line.text.trim(), line.class]);
    assert.deepEqual(lines, [
      ['"status": "ok"', 'summary'],
      ['"summary": {', 'summary'],
      ['"total": 2,', 'summary'],
      ['"errors": 0,', 'summary'],
      ['"numFailedTests": 1', 'summary'],
      ['"error": "boom",', 'error'],
      ['"warnings": [', 'warning'],
    ]);
  });

  it('search results: the searched text is not an error of the tool, its own messages and counts are', () => {
    const text = ['src/a.ts:12:  throw new Error("boom")', 'rg: /root/x: Permission denied (os error 13)', '42 matches'].join('\n');
    const lines = scanNotable(Buffer.from(text), 'search').lines.map((line) => [line.line, line.class]);
    assert.deepEqual(lines, [
      [2, 'error'],
      [3, 'summary'],
    ]);
  });

  it('classifyHit reads the count beside an error word; a plain error word still names the line', () => {
    const text = 'build: 3 errors, failures=0';
    assert.equal(classifyHit(text, text.indexOf('errors'), 'errors', 'command'), 'count');
    assert.equal(classifyHit(text, text.indexOf('failures'), 'failures', 'command'), 'count');
    assert.equal(classOf('ERROR [worker] job 1000 failed: timeout'), 'error');
    assert.equal(classOf('0 errors, 2 warnings'), 'summary');
    // A number before a log level or a label is a line number, a time or an id, not its count (issue 31).
    for (const line of [
      'line 9000 ERROR: disk quota exceeded',
      '2024-05-18 12:00:01 ERROR connection lost',
      '12:00:01 error: connection lost',
      'job 17 FAILED',
      'step 3 Fatal: no space left',
    ]) {
      assert.equal(classOf(line), 'error', line);
    }
    for (const line of ['Found 3 errors in 2 files.', '3 failed, 97 passed', 'failures: 2', 'build: 2 errors, 1 warning', '共 3 错误']) {
      assert.equal(classOf(line), 'summary', line);
    }
    assert.equal(classifyHit('an error here', 3, 'error', 'command'), 'error');
  });

  it('runs in time linear in the text: pathological lines finish (each pattern once over 4 MiB)', () => {
    // Shapes that make backtracking patterns explode: long runs of a keyword's prefix, of key
    // characters after a quote, of letters before "Error", and of near-misses of every word.
    const size = 4 * 1024 * 1024;
    const lines = [
      'e'.repeat(size),
      `"${'a'.repeat(size)}`,
      `${'A'.repeat(size)}Erro`,
      'erro '.repeat(size / 5),
      '"total'.repeat(size / 6),
      `${'x_'.repeat(size / 4)}`,
    ];
    for (const kind of ['command', 'json', 'search'] as const) {
      for (const line of lines) {
        const digest = scanNotable(Buffer.from(line), kind);
        assert.equal(digest.to, Buffer.byteLength(line));
      }
    }
    // The compiled scans use only bounded repetition: no `*` or `+` quantifier at all.
    for (const { regex } of Object.values(SCANS).flat()) assert.doesNotMatch(regex.source, /[*+]/, regex.source);
  });
});

describe('notable lines: scanner and digest', () => {
  it('gives each line its number and the byte offset where its text starts', () => {
    const text = 'ok\n日本語 ok\nerror: 壊れた\n  warning: w\n';
    const digest = scanNotable(Buffer.from(text), 'command');
    const bytes = Buffer.from(text);
    for (const line of digest.lines) {
      assert.equal(bytes.subarray(line.offset).toString('utf8').split('\n')[0], line.text);
    }
    assert.deepEqual(shape(digest), [
      { cls: 'error', line: 3, offset: Buffer.byteLength('ok\n日本語 ok\n'), count: 1 },
      { cls: 'warning', line: 4, offset: Buffer.byteLength('ok\n日本語 ok\nerror: 壊れた\n'), count: 1 },
    ]);
    assert.deepEqual([digest.fromLine, digest.toLine, digest.from, digest.to], [1, 5, 0, bytes.length]);
  });

  it('deduplicates repeats (digits and ids aside) with a count and the last occurrence', () => {
    const text = [
      'ERROR retry 1 of job 3f9a2c1b7e',
      'ok',
      'ERROR retry 2 of job 88d1e0aa42',
      'ERROR retry 3 of job 0c4b2e9f11',
      'ERROR something else',
    ].join('\n');
    const digest = scanNotable(Buffer.from(text), 'command');
    assert.equal(digest.lines.length, 2);
    assert.deepEqual(
      digest.lines.map((line) => [line.line, line.count, line.lastLine]),
      [
        [1, 3, 4],
        [5, 1, undefined],
      ],
    );
    assert.deepEqual([digest.counts.error, digest.distinct], [4, 2]);
    assert.deepEqual(hashKey(Buffer.from('  x 12, '), 0, 8), hashKey(Buffer.from('x 345'), 0, 5));
    assert.notDeepEqual(hashKey(Buffer.from('x a'), 0, 3), hashKey(Buffer.from('x b'), 0, 3));
  });

  it('stays bounded: the first and the most recent distinct lines of each class are kept, all are counted', () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++)
      lines.push(
        `error: distinct failure ${'abcdefghij'[i % 10]}${String.fromCharCode(97 + (((i / 10) % 26) | 0))} ${'q'.repeat(i % 7)} ${Math.floor(i / 260)}x`,
      );
    const text = lines.join('\n');
    const digest = scanNotable(Buffer.from(text), 'command');
    assert.equal(digest.counts.error, 20_000);
    assert.ok(digest.lines.length <= FIRST_KEPT + RECENT_KEPT, `${digest.lines.length} kept`);
    assert.deepEqual(
      digest.lines.slice(0, FIRST_KEPT).map((line) => line.line),
      Array.from({ length: FIRST_KEPT }, (_, i) => i + 1),
      'the first distinct ones',
    );
    assert.equal(Math.max(...digest.lines.map((line) => line.lastLine ?? line.line)), 20_000, 'and the latest');
  });

  it('property: any chunking of a stream gives the same lines, counts and offsets as one write', () => {
    const seed = seedFromEnv(1313);
    const rng = makeRng(seed);
    const short = ['error: e', 'WARN w', 'Tests: 3 failed', 'ok', 'plain', 'TypeError: t', '日本語', 'test result: FAILED. 3 passed'];
    const long = [...short, `${'x'.repeat(300)} fatal: deep`];
    for (let round = 0; round < 60; round++) {
      const words = round % 2 ? long : short;
      const text = Array.from({ length: rng.int(1, 200) }, () => `${rng.pick(words)} ${rng.int(0, 99)}`).join(
        rng.chance(0.5) ? '\n' : '\r\n',
      );
      const bytes = Buffer.from(text);
      const whole = scanNotable(bytes, 'command');
      const scanner = new NotableScanner('command');
      for (let at = 0; at < bytes.length;) {
        const size = rng.int(1, 97);
        scanner.write(bytes.subarray(at, at + size));
        at += size;
      }
      const chunked = scanner.finish();
      const context = `seed ${seed}, round ${round}`;
      assert.deepEqual(chunked.counts, whole.counts, context);
      assert.deepEqual([chunked.to, chunked.toLine], [whole.to, whole.toLine], context);
      // Lines are found, numbered and placed alike; only a window inside a long line can end (and
      // so be told apart from its repeats) at a chunk's end, so those rounds compare line starts.
      const atLineStart = (offset: number) => offset === 0 || bytes[offset - 1] === 0x0a;
      const starts = (digest: NotableDigest) => digest.lines.filter((line) => atLineStart(line.offset) && line.text.length < TEXT_BYTES);
      const view = (digest: NotableDigest) => starts(digest).map((line) => [line.class, line.line, line.offset, line.text, line.count]);
      if (words === short) assert.deepEqual(view(chunked), view(whole), context);
      else assert.deepEqual(new Set(view(chunked).map((v) => v[1])), new Set(view(whole).map((v) => v[1])), context);
    }
  });

  it('scans from a position inside a line (the preview omits from mid-line)', () => {
    const text = 'head line\nerror: before the cut; the omitted part starts inside this line: fatal here\nmore\n';
    const from = text.indexOf('the omitted');
    const digest = scanNotable(Buffer.from(text), 'command', { from });
    // The line is listed for the word after the cut, with the offset and text of its start.
    assert.deepEqual(shape(digest), [{ cls: 'error', line: 2, offset: text.indexOf('error'), count: 1 }]);
    assert.equal(digest.lines[0].text, 'error: before the cut; the omitted part starts inside this line: fatal here');
    // A word only before the cut is in the visible head: not listed.
    assert.equal(scanNotable(Buffer.from(text), 'command', { from: text.indexOf('here') }).lines.length, 0);
  });

  it('a chunk of zeros or binary without keywords costs no decoding, and finds nothing', () => {
    const scanner = new NotableScanner('command');
    for (let i = 0; i < 16; i++) scanner.write(Buffer.alloc(65536));
    const digest = scanner.finish();
    assert.deepEqual([digest.lines.length, digest.to, digest.toLine], [0, 16 * 65536, 1]);
    // Zeros, then a line: the zeros were the first line's start.
    const after = new NotableScanner('command');
    after.write(Buffer.alloc(100_000));
    after.write(Buffer.from('\nerror: after the padding\n'));
    assert.deepEqual(
      after.finish().lines.map((line) => [line.line, line.offset, line.text]),
      [[2, 100_001, 'error: after the padding']],
    );
  });
});

describe('notable lines: ranking and the marker block', () => {
  const line = (cls: NotableLine['class'], at: number, extra: Partial<NotableLine> = {}): NotableLine => ({
    class: cls,
    line: at,
    offset: at * 100,
    text: `${cls} at ${at}`,
    count: 1,
    ...extra,
  });

  it('ranks errors before summaries before warnings, and per class the first and last before the rest', () => {
    const lines = [
      line('warning', 1),
      line('error', 2),
      line('error', 3),
      line('summary', 4),
      line('error', 5),
      line('error', 6),
      line('warning', 7),
    ];
    assert.deepEqual(
      rankNotable(lines).map((l) => `${l.class}@${l.line}`),
      ['error@2', 'error@6', 'summary@4', 'warning@1', 'warning@7', 'error@3', 'error@5'],
    );
  });

  it('places dropped lines where the gap is', () => {
    const lines = [
      line('error', 900, { offset: 900 }),
      line('error', 5000, { offset: 4000, dropped: true }),
      line('error', 2, { offset: 2 }),
    ];
    assert.deepEqual(
      rankNotable(lines, 500).map((l) => l.line),
      [2, 900, 5000],
    );
  });

  it('renders within its budget: counts, then lines with line numbers and read offsets, dropped ones marked', () => {
    const omitted: NotableDigest = {
      lines: [line('error', 10, { count: 3, lastLine: 40 }), line('warning', 12)],
      counts: { error: 3, summary: 0, warning: 1 },
      distinct: 2,
      from: 0,
      to: 9000,
      fromLine: 1,
      toLine: 90,
    };
    const dropped: NotableDigest = {
      ...omitted,
      lines: [line('error', 190233, { dropped: true })],
      counts: { error: 1, summary: 0, warning: 0 },
      distinct: 1,
    };
    const block = renderNotableBlock({ omitted, dropped, droppedBytes: 123456, gapOffset: 5000, readable: true }, 4096);
    assert.ok(Buffer.byteLength(block.text) <= 4096);
    const lines = block.text.trimEnd().split('\n');
    assert.match(
      lines[0],
      /^\[notable lines in the omitted part: 3 errors, 1 warning \(2 distinct\); in the 123456 bytes dropped at capture/,
    );
    assert.deepEqual(lines.slice(1), [
      'error line 10 @1000 ×3 (last line 40): error at 10',
      'error output line 190233, dropped at capture: error at 190233',
      'warning line 12 @1200: warning at 12]',
    ]);
    for (const budget of [120, 200, 300, 1000]) {
      const small = renderNotableBlock({ omitted, dropped, readable: true }, budget);
      assert.ok(Buffer.byteLength(small.text) <= budget, `${budget}: ${small.text}`);
    }
    assert.equal(renderNotableBlock({ omitted, readable: true }, 100).text, '', 'no room, no block');
    assert.doesNotMatch(renderNotableBlock({ omitted, readable: false }, 4096).text, /@\d/, 'no offsets without a copy');
  });

  it('clip never splits a character and marks the cut', () => {
    assert.equal(clip('short', 10), 'short');
    const cut = clip('日本語テキスト', 10);
    assert.ok(Buffer.byteLength(cut) <= 10 && cut.endsWith('…') && !cut.includes('\uFFFD'), cut);
  });
});
