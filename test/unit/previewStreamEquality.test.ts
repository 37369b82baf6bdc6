import assert from 'node:assert/strict';
import path from 'node:path';
import { previewHeadTail, type Preview, type PreviewOptions } from '../../src/core/preview';
import { streamTuning } from '../../src/core/previewSource';
import { previewCases } from './helpers/previewInputs';
import { makeRng, seedFromEnv, type Rng } from './helpers/prng';

/**
 * A string's preview is the one its UTF-8 bytes give (`Buffer.from`, lone surrogates as U+FFFD):
 * the straightforward reference for the streamed string path, which encodes only the ends and the
 * middle piece by piece. A preview that is the whole text is the string itself, so it is compared
 * encoded and decoded.
 */
function assertSamePreview(text: string, options: PreviewOptions, what: string): void {
  const fromString: Preview = previewHeadTail(text, options);
  const fromBytes = previewHeadTail(Buffer.from(text, 'utf8'), options);
  if (!fromString.truncated) fromString.text = Buffer.from(fromString.text, 'utf8').toString('utf8');
  assert.deepEqual(fromString, fromBytes, what);
}

/** Streams from any size on, in pieces and buffers from tiny (long lines grow them) to the shipped ones. */
function withRandomTuning(rng: Rng, body: (tuning: string) => void): void {
  const saved = { ...streamTuning };
  try {
    Object.assign(streamTuning, {
      minChars: 0,
      pieceChars: rng.chance(0.5) ? rng.int(1, 4000) : saved.pieceChars,
      bufferBytes: rng.chance(0.5) ? rng.int(16, 8192) : saved.bufferBytes,
    });
    body(JSON.stringify(streamTuning));
  } finally {
    Object.assign(streamTuning, saved);
  }
}

/** Text whose awkward parts fall on piece and buffer edges: surrogates, CRLF, lines longer than a buffer. */
function awkwardText(rng: Rng): string {
  const parts = ['a', 'é', '日本語', '😀', '\ud800', '\udc00', '\r\n', '\n', 'ERROR x', ' failed\n', 'Total: 3\n', '警告', ' '];
  const out: string[] = [];
  const size = rng.int(20_000, 200_000);
  for (let length = 0; length < size;) {
    const part = rng.chance(0.002) ? 'y'.repeat(rng.int(10_000, 60_000)) : rng.pick(parts);
    out.push(part);
    length += part.length;
  }
  return out.join('');
}

describe('previewHeadTail: a string previews exactly as its bytes do', () => {
  it('property: random texts (multibyte, lone surrogates, CRLF, very long lines), streamed through buffers of any size', () => {
    const seed = seedFromEnv(1902);
    const rng = makeRng(seed);
    const cases = previewCases(rng, 60).map(({ content, options }): { text: string; options: PreviewOptions } => ({
      text: typeof content === 'string' ? content : content.toString('utf8'),
      // A capture gap is read in the bytes, never streamed: not this path.
      options: { ...options, gapOffset: undefined, droppedBytes: undefined },
    }));
    for (let i = 0; i < 30; i++)
      cases.push({
        text: awkwardText(rng),
        options: { budgetBytes: rng.int(512, 30_000), kind: rng.pick(['command', 'generic'] as const), outputId: 'out_1' },
      });
    cases.forEach(({ text, options }, i) =>
      withRandomTuning(rng, (tuning) =>
        assertSamePreview(text, options, `seed ${seed}, case ${i} (${text.length} chars, ${JSON.stringify(options)}, ${tuning})`),
      ),
    );
  });

  it("the bench's quiet and noisy logs (1 MiB each), with the shipped tuning and with random ones", async () => {
    const samples = (await import(path.join(__dirname, '../../bench/lib/previewSamples.mjs'))) as {
      previewSamples(bytes: number): Record<string, Buffer>;
      PREVIEW_OPTIONS: PreviewOptions;
    };
    const rng = makeRng(seedFromEnv(1903));
    for (const [name, bytes] of Object.entries(samples.previewSamples(1024 * 1024))) {
      const text = bytes.toString('utf8');
      assertSamePreview(text, samples.PREVIEW_OPTIONS, `${name} log`);
      for (let round = 0; round < 3; round++)
        withRandomTuning(rng, (tuning) => assertSamePreview(text, samples.PREVIEW_OPTIONS, `seed ${rng.seed}, ${name} log, ${tuning}`));
    }
  });
});
