import assert from 'node:assert/strict';
import { previewHeadTail } from '../../src/core/preview';
import { makeRng, seedFromEnv } from './helpers/prng';

const ID = 'out_0123456789abcdef01234567';
const MiB = 1024 * 1024;

/** `lines` log lines, some notable, some with non-ASCII and (for a string) a lone surrogate. */
function log(lines: number, salt: number, loneSurrogates: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const kind = (i * 7 + salt) % 97;
    out.push(
      kind === 0
        ? `2024-05-18T10:00:01Z ERROR [db] job ${i} failed: 连接被拒绝 ${salt}`
        : kind === 1
          ? `WARN slow ${i % 13} ${loneSurrogates ? '\ud800' : 'x'} on node-${salt}`
          : `2024-05-18T10:00:01Z INFO request ${i} served in ${i % 97} ms ✓`,
    );
  }
  return `${out.join('\n')}\n`;
}

describe('previewHeadTail: a large string', () => {
  it('previews exactly as its bytes do, also right after a larger one (its encoding buffer is reused)', () => {
    const options = { budgetBytes: 24 * 1024, kind: 'command' as const, outputId: ID };
    const texts = [log(40_000, 1, false), log(25_000, 2, true), log(30_000, 3, true), log(100, 4, false)];
    assert.ok(Buffer.byteLength(texts[0]) > 2 * MiB && Buffer.byteLength(texts[1]) > MiB);
    for (const text of texts) {
      const fromString = previewHeadTail(text, options);
      const fromBytes = previewHeadTail(Buffer.from(text, 'utf8'), options);
      assert.deepEqual(fromString, fromBytes);
      assert.equal(fromString.totalBytes, Buffer.byteLength(text));
    }
  });

  it('property: the marker counts lines and bytes as a count over the whole output does', () => {
    const seed = seedFromEnv(1319);
    const rng = makeRng(seed);
    for (let round = 0; round < 40; round++) {
      const text = log(rng.int(20, 3000), round, rng.chance(0.5)).slice(0, rng.chance(0.5) ? undefined : -rng.int(1, 30));
      const bytes = Buffer.from(text, 'utf8');
      const budgetBytes = rng.int(600, Math.max(600, Math.floor(bytes.length * 0.9)));
      const preview = previewHeadTail(rng.chance(0.5) ? text : bytes, {
        budgetBytes,
        kind: rng.pick(['command', 'search', 'generic'] as const),
        outputId: ID,
      });
      const context = `seed ${seed}, round ${round}, budget ${budgetBytes}`;
      const breaks = (from: number, to: number) => bytes.subarray(from, to).filter((byte) => byte === 0x0a).length;
      assert.equal(preview.totalLines, breaks(0, bytes.length) + (bytes[bytes.length - 1] === 0x0a ? 0 : 1), context);
      if (!preview.omitted) continue;
      const { from, to } = preview.omitted;
      assert.equal(preview.omitted.firstLine, breaks(0, from) + 1, context);
      assert.equal(preview.omitted.lines, breaks(from, to) + (to > from && bytes[to - 1] !== 0x0a ? 1 : 0), context);
      for (const line of preview.notable?.shown ?? []) assert.equal(line.line, breaks(0, line.offset) + 1, `${context}: ${line.text}`);
    }
  });
});
