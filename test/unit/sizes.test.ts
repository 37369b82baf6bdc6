// One output's sizes read the same everywhere (issue 29, item 8): the tree and the session names
// (src/extension/sizes.ts) format and name them exactly as the inspector's page (webview/sizes.ts),
// and each names what it measures: the output the tool produced, the copy retained of it.
import assert from 'node:assert/strict';
import { outputSizes, sizeExact, sizeText } from '../../src/extension/sizes';
import { bytes, bytesExact, outputSizes as pageOutputSizes } from '../../webview/sizes';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('sizes', () => {
  it('the extension formats a size exactly as the inspector page does', () => {
    for (const value of [
      0,
      1,
      999,
      1000,
      1023,
      1024,
      1536,
      99.94 * KiB,
      100 * KiB,
      884 * KiB + 3,
      MiB - 1,
      MiB,
      9.5 * MiB,
      8 * 1024 * MiB,
    ]) {
      const n = Math.round(value);
      assert.equal(sizeText(n), bytes(n), `${n}`);
      assert.equal(sizeExact(n), bytesExact(n), `${n}`);
    }
  });

  it("an output's sizes are named: the output, and the copy when capture dropped part of it; tree and page say the same", () => {
    const cut = { totalBytes: 884 * KiB, droppedBytes: 9.5 * MiB - 884 * KiB, complete: false };
    assert.equal(outputSizes(cut), 'output 9.5 MiB · copy 884 KiB');
    assert.equal(outputSizes(cut, true), 'output 9.5 MiB · copy 884 KiB (905,216 bytes)');
    const whole = { totalBytes: 2048, droppedBytes: 0, complete: true };
    assert.equal(outputSizes(whole), 'output 2.0 KiB');
    for (const info of [cut, whole, { totalBytes: 10, droppedBytes: 0, complete: false }])
      for (const exact of [false, true]) assert.equal(outputSizes(info, exact), pageOutputSizes(info, exact));
  });
});
