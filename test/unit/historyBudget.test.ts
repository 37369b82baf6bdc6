import assert from 'node:assert/strict';
import { isRecallError } from '../../src/core/errors';
import { MAX_RESULT_CHARS, PART_FLOOR_BYTES, splitTextBudget, toolResultBudgetBytes, toolResultCapChars } from '../../src/core/history';

const invalid =
  (pattern: RegExp) =>
  (error: unknown): boolean => {
    assert.ok(isRecallError(error, 'INVALID_ARGUMENT'), `expected INVALID_ARGUMENT, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  };

describe('history budget: per-result cap', () => {
  it('is 30% of the window at 2 chars per token, capped at 400,000 chars', () => {
    assert.equal(toolResultCapChars(32_000), 19_200);
    assert.equal(toolResultCapChars(128_000), 76_800);
    assert.equal(toolResultCapChars(200_000), 120_000);
    assert.equal(toolResultCapChars(2_000_000), MAX_RESULT_CHARS);
    assert.equal(MAX_RESULT_CHARS, 400_000);
  });

  it('rounds down for windows that do not divide evenly', () => {
    assert.equal(toolResultCapChars(32_768), 19_660); // 0.3 × 32768 × 2 = 19660.8
  });

  it('holds ordinary results to the 32 KiB history budget unless the cap is smaller', () => {
    assert.equal(toolResultBudgetBytes(32_000), 19_200); // the cap binds
    assert.equal(toolResultBudgetBytes(128_000), 32 * 1024);
    assert.equal(toolResultBudgetBytes(2_000_000), 32 * 1024);
    assert.equal(toolResultBudgetBytes(128_000, 64 * 1024), 64 * 1024);
    assert.equal(toolResultBudgetBytes(128_000, 200_000), 76_800);
  });

  it('clamps a window too small to hold a marker to the part floor', () => {
    assert.equal(toolResultBudgetBytes(1_000), PART_FLOOR_BYTES);
  });

  it('rejects a context window that is not a positive finite number', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => toolResultCapChars(bad),
        invalid(/context window must be a positive, finite number of tokens.*got (0|-1|NaN|Infinity)/),
      );
      assert.throws(() => toolResultBudgetBytes(bad), invalid(/context window/));
    }
    assert.throws(() => toolResultCapChars('128000' as unknown as number), invalid(/context window/));
  });

  it('rejects a history budget below the part floor or not an integer', () => {
    assert.throws(() => toolResultBudgetBytes(128_000, 100), invalid(/history budget must be an integer of at least 1024 bytes/));
    assert.throws(() => toolResultBudgetBytes(128_000, Number.NaN), invalid(/got NaN/));
  });
});

describe('history budget: multi-part split', () => {
  it('keeps every part whole when the total fits', () => {
    assert.deepEqual(splitTextBudget([100, 2_000, 5_000], 32_768), [100, 2_000, 5_000]);
  });

  it('shares the budget in proportion to part sizes', () => {
    assert.deepEqual(splitTextBudget([60_000, 20_000], 32_000), [24_000, 8_000]);
    const shares = splitTextBudget([90_000, 30_000, 30_000], 30_000);
    assert.deepEqual(shares, [18_000, 6_000, 6_000]);
  });

  it('keeps parts no larger than the floor whole and splits the rest among the large ones', () => {
    const shares = splitTextBudget([500, 60_000, 20_000], 32_500);
    assert.equal(shares[0], 500);
    assert.equal(shares[1] + shares[2], 32_000);
    assert.equal(shares[1], 3 * shares[2]);
  });

  it('raises a share below the floor to the floor and takes it from the larger parts', () => {
    const shares = splitTextBudget([1_000_000, 5_000], 20_000);
    assert.equal(shares[1], PART_FLOOR_BYTES);
    assert.equal(shares[0], 20_000 - PART_FLOOR_BYTES);
  });

  it('never gives a part more than its size, nor less than the floor once cut', () => {
    const sizes = [3_000, 70_000, 1_500, 400_000, 2_048];
    const shares = splitTextBudget(sizes, 16_384);
    shares.forEach((share, i) => {
      assert.ok(share <= sizes[i]);
      assert.ok(share >= Math.min(sizes[i], PART_FLOOR_BYTES));
    });
    assert.ok(shares.reduce((a, b) => a + b, 0) <= 16_384);
  });

  it('rejects a bad budget or part size', () => {
    assert.throws(() => splitTextBudget([10], 0), invalid(/positive integer of bytes; got 0/));
    assert.throws(() => splitTextBudget([Number.NaN], 100), invalid(/non-negative integers of bytes; got NaN/));
  });
});
