// One output's sizes read the same everywhere (issue 29, item 8): the tree and the session names
// (src/extension/sizes.ts) use the inspector page's functions (webview/sizes.ts), and each size names
// what it measures: the output the tool produced, the copy retained of it.
import assert from 'node:assert/strict';
import { outputSizes, sizeExact, sizeText } from '../../src/extension/sizes';
import { bytes, bytesExact, outputSizes as pageOutputSizes } from '../../webview/sizes';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('sizes', () => {
  it("the extension formats a size with the inspector page's own functions: binary units, three figures, exact bytes grouped", () => {
    assert.equal(sizeText, bytes);
    assert.equal(sizeExact, bytesExact);
    assert.equal(outputSizes, pageOutputSizes);
    const cases: [number, string, string][] = [
      [0, '0 B', '0 bytes'],
      [1023, '1,023 B', '1,023 bytes'],
      [1024, '1.0 KiB', '1.0 KiB (1,024 bytes)'],
      [1536, '1.5 KiB', '1.5 KiB (1,536 bytes)'],
      [100 * KiB, '100 KiB', '100 KiB (102,400 bytes)'],
      [884 * KiB + 3, '884 KiB', '884 KiB (905,219 bytes)'],
      [9.5 * MiB, '9.5 MiB', '9.5 MiB (9,961,472 bytes)'],
      [8 * 1024 * MiB, '8.0 GiB', '8.0 GiB (8,589,934,592 bytes)'],
    ];
    for (const [value, text, exact] of cases) {
      assert.equal(sizeText(value), text, `${value}`);
      assert.equal(sizeExact(value), exact, `${value}`);
    }
  });

  it("an output's sizes are named: the output, and the copy when capture dropped part of it; tree and page say the same", () => {
    const cut = { totalBytes: 884 * KiB, droppedBytes: 9.5 * MiB - 884 * KiB, complete: false };
    assert.equal(outputSizes(cut), 'output 9.5 MiB · copy 884 KiB');
    assert.equal(outputSizes(cut, true), 'output 9.5 MiB · copy 884 KiB (905,216 bytes)');
    const whole = { totalBytes: 2048, droppedBytes: 0, complete: true };
    assert.equal(outputSizes(whole), 'output 2.0 KiB');
    assert.equal(outputSizes({ totalBytes: 10, droppedBytes: 0, complete: false }), 'output 10 B');
  });
});
