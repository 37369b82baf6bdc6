import assert from 'node:assert/strict';
import { previewHeadTail, type PreviewOptions } from '../../src/core/preview';
import { HeadTailBuffer } from '../../src/core/capture/headTailBuffer';
import { scanNotable } from '../../src/core/notable/scanner';
import { makeRng, seedFromEnv } from './helpers/prng';
import { mixedText } from './helpers/mixedText';

const ID = 'out_0123456789abcdef01234567';
const KiB = 1024;

/** A log of `count` ordinary lines, with `special` lines at given line numbers. */
function log(count: number, special: Record<number, string> = {}): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) lines.push(special[i] ?? `2024-05-18T10:00:01Z INFO request ${i} served in ${i % 97} ms`);
  return `${lines.join('\n')}\n`;
}

/** The list under the marker, as lines (without its brackets), or [] when there is none. */
function listed(text: string): string[] {
  const at = text.indexOf('\n[notable lines in the omitted part');
  if (at < 0) return [];
  const end = text.indexOf(']\n', at);
  return text.slice(at + 1, end < 0 ? undefined : end).split('\n');
}

describe('previewHeadTail: notable lines of the omitted part', () => {
  const special = {
    7000: '2024-05-18T10:00:02Z ERROR [db] connection refused: ECONNREFUSED 10.0.0.5:5432',
    9000: 'src/x.ts:9000: warning: deprecated API used',
    12000: 'Tests: 3 failed, 1200 passed, 1203 total',
    3: '2024-05-18T10:00:02Z ERROR [head] visible in the head',
  };

  it('lists them with line numbers and read offsets that start their lines, inside a 24 KiB budget', () => {
    const text = log(20_000, special);
    const bytes = Buffer.from(text);
    const preview = previewHeadTail(text, { budgetBytes: 24 * KiB, kind: 'command', outputId: ID });
    assert.ok(Buffer.byteLength(preview.text) <= 24 * KiB, `${Buffer.byteLength(preview.text)} bytes`);
    const list = listed(preview.text);
    assert.match(
      list[0],
      /^\[notable lines in the omitted part: 1 error, 1 summary line, 1 warning; errors first; "@N" is the read_tool_output offset of a line:$/,
    );
    assert.deepEqual(
      list.slice(1).map((line) => line.replace(/ @\d+/, '')),
      [`error line 7000: ${special[7000]}`, `summary line 12000: ${special[12000]}`, `warning line 9000: ${special[9000]}`],
    );
    for (const line of preview.notable!.shown) {
      assert.ok(line.offset >= preview.omitted!.from && line.offset < preview.omitted!.to, 'in the omitted part');
      assert.ok(line.offset === 0 || bytes[line.offset - 1] === 0x0a, 'at a line start');
      assert.ok(bytes.subarray(line.offset).toString().startsWith(line.text), 'the offset reads the line');
      assert.ok(list.some((entry) => entry.includes(`@${line.offset}:`)));
    }
    // A notable line in the head is visible already: not listed.
    assert.ok(!list.some((entry) => entry.includes('[head]')));
  });

  it('takes its room from head and tail: with nothing notable the cut is exactly as before', () => {
    const text = log(20_000);
    const plain = previewHeadTail(text, { budgetBytes: 24 * KiB, kind: 'command', outputId: ID, notable: false });
    const withList = previewHeadTail(text, { budgetBytes: 24 * KiB, kind: 'command', outputId: ID });
    assert.equal(withList.text, plain.text);
    assert.equal(withList.notable, undefined);
    const noisy = previewHeadTail(log(20_000, special), { budgetBytes: 24 * KiB, kind: 'command', outputId: ID });
    assert.ok(noisy.omitted!.bytes > plain.omitted!.bytes, 'the list took bytes from head and tail');
    assert.ok(noisy.omitted!.bytes - plain.omitted!.bytes < 1024, 'only what it needs');
  });

  it('shrinks with the budget, and always fits it', () => {
    const text = log(20_000, { ...special, 100: 'fatal: x', 200: 'fatal: y', 300: 'fatal: z', 400: 'panic: w' });
    for (const budgetBytes of [32 * KiB, 8 * KiB, 2 * KiB, 1 * KiB, 512]) {
      const preview = previewHeadTail(text, { budgetBytes, kind: 'command', outputId: ID });
      assert.ok(Buffer.byteLength(preview.text) <= budgetBytes, `${budgetBytes}`);
      const size = Buffer.byteLength(listed(preview.text).join('\n'));
      assert.ok(size <= budgetBytes / 4, `${budgetBytes}: list of ${size} bytes`);
      if (budgetBytes >= 2 * KiB) assert.ok(size > 0, `${budgetBytes}: a list`);
    }
  });

  it('dedups a repeated error and ranks the first and last of each class first when room is short', () => {
    const many: Record<number, string> = {};
    for (let i = 1000; i < 19_000; i += 100) many[i] = `ERROR [worker] job ${i} failed: timeout after ${i} ms`;
    for (let i = 1050; i < 19_000; i += 1000)
      many[i] = `warning: slow disk ${String.fromCharCode(97 + (i % 26))}${i % 7} on node-${i % 13}-${'xyz'[i % 3]}`;
    const preview = previewHeadTail(log(20_000, many), { budgetBytes: 4 * KiB, kind: 'command', outputId: ID });
    const list = listed(preview.text);
    assert.match(list[1], /^error line 1000 @\d+ ×180 \(last line 18900\): ERROR \[worker\] job 1000 failed/);
    const warnings = list.filter((line) => line.startsWith('warning'));
    assert.ok(warnings.length >= 2, list.join('\n'));
    assert.match(warnings[0], /^warning line 1050 /, 'the first warning');
    assert.match(warnings[warnings.length - 1], /^warning line 18050 /, 'and the last, before the ones between');
  });

  it('a line repeated from head through tail still names the omitted part: one distinct entry, never "0 distinct"', () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `\x1b[32m✓\x1b[0m test ${i + 1} passed 測試 🎉 (12 ms)`);
    const preview = previewHeadTail(`${lines.join('\n')}\ndone\n`, { budgetBytes: 24 * KiB, kind: 'command', outputId: ID });
    const list = listed(preview.text);
    assert.match(list[0], /^\[notable lines in the omitted part: \d+ summary lines \(1 distinct\);/);
    assert.equal(list.length, 2, list.join('\n'));
    assert.match(list[1], /^summary line \d+ @\d+ ×\d+ \(last line \d+\): .*test \d+ passed/);
    assert.ok(Buffer.byteLength(preview.text) <= 24 * KiB);
  });
  it('lists what the capture dropped as not in the copy, and leaves the gap marker out', () => {
    const output = log(400_000, { 190_233: 'error: disk quota exceeded on /var/data' });
    const sink = new HeadTailBuffer(4 * 1024 * 1024, { notable: 'command' });
    sink.write(Buffer.from(output));
    const capped = sink.finish();
    assert.equal(capped.complete, false);
    const options: PreviewOptions = {
      budgetBytes: 24 * KiB,
      kind: 'command',
      outputId: ID,
      copyComplete: false,
      dropped: capped.dropped,
      droppedBytes: capped.droppedBytes,
      gapOffset: capped.gapOffset,
    };
    const preview = previewHeadTail(capped.bytes, options);
    assert.ok(Buffer.byteLength(preview.text) <= 24 * KiB);
    const list = listed(preview.text);
    assert.match(
      list[0],
      new RegExp(
        `in the ${capped.droppedBytes} bytes dropped at capture \\(output lines \\d+-\\d+, NOT in the copy\\) the capture saw 1 error`,
      ),
    );
    assert.deepEqual(list.slice(1), ['error output line 190233, dropped at capture: error: disk quota exceeded on /var/data']);
    assert.deepEqual(preview.notable?.dropped, { error: 1, summary: 0, warning: 0 });
    // The gap marker line ("... dropped here ...") is not output: never listed as a line of it.
    assert.equal(scanNotable(capped.bytes, 'command').lines.filter((line) => line.text.includes('tool-output-recall')).length, 0);
  });

  it('JSON: summary keys in the omitted middle, found without being told the kind', () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `user ${i}`, score: i * 3 }));
    const text = JSON.stringify(
      { records: records.slice(0, 1500), summary: { total_count: 3000, failed: 2 }, more: records.slice(1500) },
      null,
      2,
    );
    const preview = previewHeadTail(text, { budgetBytes: 8 * KiB, outputId: ID });
    const list = listed(preview.text);
    assert.ok(
      list.some((line) => /^summary line \d+ @\d+: +"total_count": 3000,$/.test(line)),
      list.join('\n'),
    );
    assert.ok(
      list.some((line) => /"failed": 2$/.test(line)),
      list.join('\n'),
    );
  });

  it('property: mixed text with notable words stays within the budget and its list reads back', () => {
    const seed = seedFromEnv(1314);
    const rng = makeRng(seed);
    const words = ['error: x', 'WARN y', 'Total: 3', 'TypeError: z', 'exit code 1', 'failed: 0'];
    for (let round = 0; round < 60; round++) {
      const parts: string[] = [];
      for (let i = rng.int(5, 60); i > 0; i--)
        parts.push(mixedText(rng, rng.int(10, 800)), `\n${rng.pick(words)} ${mixedText(rng, rng.int(0, 40))}\n`);
      const text = parts.join('');
      const budgetBytes = rng.int(600, 12_000);
      const preview = previewHeadTail(text, { budgetBytes, kind: rng.pick(['command', 'generic', 'search'] as const), outputId: ID });
      const context = `seed ${seed}, round ${round}, budget ${budgetBytes}`;
      assert.ok(Buffer.byteLength(preview.text) <= budgetBytes, context);
      const bytes = Buffer.from(text);
      for (const line of preview.notable?.shown ?? []) {
        const at = `${context}, ${JSON.stringify(line)}, omitted ${JSON.stringify(preview.omitted)}`;
        assert.ok(line.offset >= preview.omitted!.from - 200 && line.offset < preview.omitted!.to, at);
        // An entry shows tabs and carriage returns as one space each run (one line in the list).
        const read = bytes
          .subarray(line.offset)
          .toString()
          .replace(/[\t\r]+/g, ' ');
        assert.ok(read.startsWith(line.text.replace(/…$/, '')), at);
      }
    }
  });
});
