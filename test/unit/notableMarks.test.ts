import assert from 'node:assert/strict';
import { LISTED_PER_CLASS, MARK_BINS, notableMarks } from '../../src/core/notable/marks';
import { scanNotable } from '../../src/core/notable/scanner';
import { openStore } from '../../src/core/workers/stores';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('notable marks: where a whole copy’s notable lines are (the inspector’s overview)', () => {
  it('counts every notable line, repeats included, as the digest does, and lists them with their line, offset and text', () => {
    const text = ['ok', 'error: disk full', 'ok', 'warning: slow', 'error: disk full', 'test result: FAILED. 1 passed; 1 failed', ''].join(
      '\n',
    );
    const bytes = Buffer.from(text);
    const marks = notableMarks(bytes);
    assert.deepEqual(marks.counts, scanNotable(bytes, 'command').counts);
    assert.deepEqual(marks.counts, { error: 2, warning: 1, summary: 1 });
    assert.deepEqual(
      marks.lines.map(({ class: cls, line, text: t }) => [cls, line, t]),
      [
        ['error', 2, 'error: disk full'],
        ['warning', 4, 'warning: slow'],
        ['error', 5, 'error: disk full'],
        ['summary', 6, 'test result: FAILED. 1 passed; 1 failed'],
      ],
    );
    for (const line of marks.lines)
      assert.ok(bytes.subarray(line.offset).toString().startsWith(line.text), `offset ${line.offset} starts its line`);
    assert.equal(marks.totalBytes, bytes.length);
  });

  it('stays bounded on 100,000 notable lines: one mark per byte range and class, the first lines listed', () => {
    const block = (n: number): string => `error: unit ${n} failed\nwarning: unit ${n} slow\n${'fine\n'.repeat(8)}`;
    const bytes = Buffer.from(Array.from({ length: 50_000 }, (_, n) => block(n)).join(''));
    const marks = notableMarks(bytes);
    assert.deepEqual(marks.counts, { error: 50_000, warning: 50_000, summary: 0 });
    assert.ok(marks.marks.length <= 2 * MARK_BINS, `${marks.marks.length} marks`);
    assert.equal(
      marks.marks.reduce((sum, mark) => sum + mark.count, 0),
      100_000,
      'the marks stand for every line',
    );
    const keys = new Set(marks.marks.map((mark) => `${mark.bin}:${mark.class}`));
    assert.equal(keys.size, marks.marks.length, 'one mark per range and class');
    for (let i = 1; i < marks.marks.length; i++) assert.ok(marks.marks[i - 1].offset <= marks.marks[i].offset, 'in order of offset');
    for (const mark of marks.marks) assert.equal(mark.bin, Math.floor((mark.offset * MARK_BINS) / bytes.length));
    assert.equal(marks.lines.length, 2 * LISTED_PER_CLASS);
    assert.equal(marks.lines.filter((line) => line.class === 'error').length, LISTED_PER_CLASS);
  });

  it('is a read of the store, found where the store runs', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tor-marks-'));
    const store = await openStore({ dir });
    try {
      const { outputId } = await store.retain('build\nerror: link failed\ndone\n', { tool: 'run_command' });
      const marks = await store.notableMarks(outputId);
      assert.deepEqual(marks.counts, { error: 1, warning: 0, summary: 0 });
      assert.deepEqual(marks.marks, [{ class: 'error', bin: Math.floor((6 * MARK_BINS) / 30), offset: 6, line: 2, count: 1 }]);
      await assert.rejects(store.notableMarks('out_missing'), { code: 'NOT_FOUND' });
    } finally {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
