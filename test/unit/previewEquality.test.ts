import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { previewHeadTail, type Preview } from '../../src/core/preview';
import { streamTuning } from '../../src/core/previewSource';
import { previewCases } from './helpers/previewInputs';
import { makeRng } from './helpers/prng';

/**
 * What the implementation before streamed strings (issue 19) gave for these 200 inputs: a hash of
 * each whole result (text, totals, omitted range, notable lines), recorded with that implementation;
 * recorded again, with strings encoded whole (never streamed), when a number before a log level
 * stopped making a line a summary (issue 31: "line 9000 ERROR: …" is an error).
 */
const BEFORE: string[] = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'previewHashes.json'), 'utf8'));

/** The result as it was when the hashes were recorded: the facts added since (`lines`, `marker`, `notable.first`) are left out. */
const hash = ({ lines: _lines, marker: _marker, ...preview }: Preview): string => {
  const notable = preview.notable && { ...preview.notable, first: undefined };
  return createHash('sha256')
    .update(JSON.stringify({ ...preview, notable }))
    .digest('hex')
    .slice(0, 16);
};

describe('previewHeadTail: the same previews as before strings were streamed', () => {
  it('200 random inputs (strings streamed through buffers of any size, bytes, capture gaps) give exactly the recorded results', () => {
    const cases = previewCases(makeRng(1900), BEFORE.length);
    const tuning = makeRng(1901);
    const saved = { ...streamTuning };
    try {
      cases.forEach(({ content, options }, i) => {
        // Streamed from any size on, in pieces and buffers from tiny (a boundary every few lines,
        // buffers grown for long lines) to the shipped ones.
        Object.assign(streamTuning, {
          minChars: 0,
          pieceChars: tuning.chance(0.5) ? tuning.int(1, 4000) : saved.pieceChars,
          bufferBytes: tuning.chance(0.5) ? tuning.int(16, 8192) : saved.bufferBytes,
        });
        const what = `case ${i} (${typeof content === 'string' ? 'string' : 'bytes'} of ${content.length}, ${JSON.stringify(options)}, ${JSON.stringify(streamTuning)})`;
        assert.equal(hash(previewHeadTail(content, options)), BEFORE[i], what);
      });
    } finally {
      Object.assign(streamTuning, saved);
    }
  });
});
