// A preview's line budget (issue 39: OpenCode and Kilo Code keep a result's first 2,000 lines): head,
// marker, notable list and tail together in at most that many lines, whatever the line length, with
// the byte budget still holding; the MCP server passes a client's budget with each call (CallOptions.previewLines).
import assert from 'node:assert/strict';
import { previewHeadTail } from '../../src/core/preview';

const numbers = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join('');

describe('preview: a line budget beside the byte budget', () => {
  const cases: [string, string][] = [
    ['short lines', `${numbers(1, 100_000)}error: disk full\n${numbers(100_001, 200_000)}done\n`],
    ['empty lines', `${'\n'.repeat(50_000)}error: disk full\n${'\n'.repeat(50_000)}done`],
    ['long lines', `${`${'x'.repeat(300)}\n`.repeat(1000)}error: disk full\n${`${'y'.repeat(300)}\n`.repeat(1000)}done\n`],
  ];
  for (const [name, content] of cases) {
    it(`${name}: at most budgetLines lines and budgetBytes bytes, with the marker, the omitted error and the last line`, () => {
      for (const budgetLines of [16, 100, 900]) {
        const preview = previewHeadTail(Buffer.from(content), { budgetBytes: 24 * 1024, budgetLines, kind: 'command', outputId: 'out_1' });
        assert.ok(preview.truncated);
        assert.ok(preview.text.split('\n').length <= budgetLines, `${budgetLines}: ${preview.text.split('\n').length} lines`);
        assert.ok(Buffer.byteLength(preview.text) <= 24 * 1024);
        assert.match(preview.text, /\[\.\.\. \d+ bytes omitted: /);
        assert.ok(preview.text.trimEnd().endsWith('done'), preview.text.slice(-40));
        if (budgetLines >= 100) assert.match(preview.text, /\nerror line \d+ @\d+: error: disk full/);
      }
    });
  }

  it('cuts content under the byte budget that has more lines than the line budget, and leaves one that fits whole', () => {
    const content = numbers(1, 2000);
    assert.ok(content.length < 24 * 1024);
    assert.equal(previewHeadTail(content, { budgetBytes: 24 * 1024 }).truncated, false);
    const cut = previewHeadTail(content, { budgetBytes: 24 * 1024, budgetLines: 500, outputId: 'out_1' });
    assert.ok(cut.truncated && cut.text.split('\n').length <= 500);
    assert.equal(previewHeadTail(numbers(1, 400), { budgetBytes: 24 * 1024, budgetLines: 500 }).truncated, false);
  });

  it('refuses a line budget too small for the marker', () => {
    assert.throws(() => previewHeadTail(Buffer.from(numbers(1, 100_000)), { budgetBytes: 24 * 1024, budgetLines: 3 }), /line budget/);
  });
});
