import assert from 'node:assert/strict';
import { hasImportantTail, MIN_PREVIEW_BUDGET, previewHeadTail, type Preview, type PreviewOptions } from '../../src/core/preview';
import { namedReadCall, throwsWith } from './helpers/assertions';
import { decode, isBoundaryOracle, mixedBytes, mixedText } from './helpers/mixedText';
import { makeRng, seedFromEnv } from './helpers/prng';

const ID = 'out_0123456789abcdef01234567';
const bytesOf = (content: string | Uint8Array): Buffer => (typeof content === 'string' ? Buffer.from(content) : Buffer.from(content));
const lines = (count: number, make: (i: number) => string = (i) => `line ${String(i).padStart(5, '0')} ${'.'.repeat(40)}`): string =>
  Array.from({ length: count }, (_, i) => `${make(i + 1)}\n`).join('');

/**
 * Splits a truncated preview back into head, marker and tail and checks that head and tail are
 * exactly the copy's bytes [0, from) and [to, total), cut on character boundaries.
 */
function assertShape(
  content: string | Uint8Array,
  preview: Preview,
  options: PreviewOptions,
): { head: string; marker: string; listed: string; tail: string } {
  const bytes = bytesOf(content);
  assert.ok(preview.truncated && preview.omitted);
  const { from, to } = preview.omitted;
  assert.ok(0 < from && from <= to && to <= bytes.length, `[${from}, ${to})`);
  assert.equal(preview.omitted.bytes, to - from);
  assert.ok(isBoundaryOracle(bytes, from), `head cut ${from} is inside a character`);
  assert.ok(isBoundaryOracle(bytes, to), `tail cut ${to} is inside a character`);
  const head = decode(bytes.subarray(0, from));
  const tail = decode(bytes.subarray(to));
  assert.ok(preview.text.startsWith(head), "preview does not start with the copy's head");
  assert.ok(preview.text.endsWith(tail), "preview does not end with the copy's tail");
  let marker = preview.text.slice(head.length, preview.text.length - tail.length);
  if (!head.endsWith('\n') && head.length > 0) {
    assert.ok(marker.startsWith('\n'));
    marker = marker.slice(1);
  }
  if (tail.length > 0) {
    assert.ok(marker.endsWith('\n'));
    marker = marker.slice(0, -1);
  }
  // The marker's first line, then (when the omitted part has notable lines) their list.
  const block = marker.indexOf('\n[notable lines');
  const listed = block < 0 ? '' : marker.slice(block + 1);
  if (block >= 0) marker = marker.slice(0, block);
  assert.match(marker, /^\[\.\.\. \d+ bytes omitted: .*\]$/s);
  assert.ok(!marker.includes('\n'), 'the marker is one line');
  assert.ok(preview.marker, 'a cut preview says where its marker is');
  assert.equal(preview.text.slice(preview.marker.start, preview.marker.end), marker, "the marker's field spans exactly the marker");
  assert.equal(block >= 0, preview.notable !== undefined, 'a list exactly when the preview reports one');
  if (listed) assert.match(listed, /^\[notable lines in the omitted part: [^\n]*:(\n[^\n]+)*\]$/);
  // The marker's facts.
  assert.ok(marker.includes(`${to - from} bytes omitted`), marker);
  assert.ok(marker.includes(`bytes [${from}, ${to}) of ${bytes.length}`), marker);
  const firstLine = bytes.subarray(0, from).filter((b) => b === 0x0a).length + 1;
  const omittedLines = bytes.subarray(from, to).filter((b) => b === 0x0a).length + (to > from && bytes[to - 1] !== 0x0a ? 1 : 0);
  const totalLines = bytes.filter((b) => b === 0x0a).length + (bytes[bytes.length - 1] === 0x0a ? 0 : 1);
  assert.equal(preview.omitted.firstLine, firstLine);
  assert.equal(preview.omitted.lines, omittedLines);
  assert.equal(preview.totalLines, totalLines);
  assert.ok(
    marker.includes(`lines ${firstLine}-${firstLine + Math.max(omittedLines, 1) - 1} of ${totalLines} (${omittedLines} lines)`),
    marker,
  );
  if (options.outputId) {
    assert.deepEqual(namedReadCall(marker), { outputId: options.outputId, offset: from });
    assert.ok(marker.includes(`read_tool_output {"outputId":"${options.outputId}","offset":${from}}`), marker);
  } else {
    assert.ok(!marker.includes('read_tool_output'), marker);
    assert.match(marker, /NOT retained/);
  }
  return { head, marker, listed, tail };
}

describe('previewHeadTail', () => {
  it('returns content that fits unchanged (the identical string)', () => {
    const text = 'short output\nwith 日本語 and 😀\n';
    const preview = previewHeadTail(text, { budgetBytes: 1024, outputId: ID });
    assert.equal(preview.text, text);
    assert.equal(preview.truncated, false);
    assert.equal(preview.omitted, undefined);
    assert.equal(preview.totalBytes, Buffer.byteLength(text));
    assert.equal(preview.totalLines, 2);
    const exact = 'e'.repeat(MIN_PREVIEW_BUDGET);
    assert.equal(previewHeadTail(exact, { budgetBytes: MIN_PREVIEW_BUDGET }).text, exact);
    assert.equal(previewHeadTail(new TextEncoder().encode(text), { budgetBytes: 1024 }).text, text);
  });

  it('rejects a budget below the minimum or not an integer', () => {
    throwsWith(() => previewHeadTail('x', { budgetBytes: MIN_PREVIEW_BUDGET - 1 }), 'INVALID_ARGUMENT');
    throwsWith(() => previewHeadTail('x', { budgetBytes: 1000.5 }), 'INVALID_ARGUMENT');
  });

  it('keeps head and tail around a marker naming [from, to), lines, totals, the outputId and the read call', () => {
    const text = lines(5000);
    const options: PreviewOptions = { budgetBytes: 8192, kind: 'command', outputId: ID };
    const preview = previewHeadTail(text, options);
    assert.ok(Buffer.byteLength(preview.text) <= 8192);
    const { marker } = assertShape(text, preview, options);
    assert.ok(marker.includes(`of ${Buffer.byteLength(text)}`));
    assert.match(marker, /The full output is retained/);
    assert.ok(!/incomplete/.test(marker));
  });

  it('says the copy is itself incomplete when copyComplete is false', () => {
    const options: PreviewOptions = { budgetBytes: 4096, outputId: ID, copyComplete: false };
    const { marker } = assertShape(lines(500), previewHeadTail(lines(500), options), options);
    assert.match(marker, /complete=false/);
  });

  it('says the bytes were not retained, and why, when there is no copy', () => {
    const options: PreviewOptions = { budgetBytes: 4096, unavailableReason: 'disk full' };
    const { marker } = assertShape(lines(500), previewHeadTail(lines(500), options), options);
    assert.match(marker, /NOT retained \(disk full\)/);
  });

  it('cuts on line boundaries when a line break is close', () => {
    for (const kind of ['command', 'search', 'generic'] as const) {
      const text = lines(3000);
      const preview = previewHeadTail(text, { budgetBytes: 6000, kind, outputId: ID });
      const bytes = Buffer.from(text);
      const { from, to } = preview.omitted!;
      assert.equal(bytes[from - 1], 0x0a, `${kind}: head ends mid-line`);
      assert.ok(to === bytes.length || bytes[to - 1] === 0x0a, `${kind}: tail starts mid-line`);
    }
  });

  it('command output favours the tail; search results favour the head', () => {
    const text = lines(3000, (i) => `result ${i}`);
    const budgetBytes = 8000;
    const command = previewHeadTail(text, { budgetBytes, kind: 'command', outputId: ID }).omitted!;
    const search = previewHeadTail(text, { budgetBytes, kind: 'search', outputId: ID }).omitted!;
    const total = Buffer.byteLength(text);
    const size = (o: { from: number; to: number }) => ({ head: o.from, tail: total - o.to });
    assert.ok(size(command).tail > size(command).head, `command ${JSON.stringify(size(command))}`);
    assert.ok(size(search).head > size(search).tail, `search ${JSON.stringify(size(search))}`);
    assert.ok(size(search).head > size(command).head);
    assert.ok(size(command).tail > size(search).tail);
  });

  it('keeps a tail for search results only when the tail is important', () => {
    const plain = lines(2000, (i) => `hit ${i}`);
    const boring = previewHeadTail(plain, { budgetBytes: 4096, kind: 'search', outputId: ID });
    assert.equal(boring.importantTail, false);
    assert.equal(boring.omitted!.to, Buffer.byteLength(plain), 'no tail kept');
    const withError = `${plain}fatal error: index corrupted\n`;
    const important = previewHeadTail(withError, { budgetBytes: 4096, kind: 'search', outputId: ID });
    assert.equal(important.importantTail, true);
    assert.ok(important.text.endsWith('fatal error: index corrupted\n'));
    const generic = previewHeadTail(withError, { budgetBytes: 4096, kind: 'generic', outputId: ID });
    const genericPlain = previewHeadTail(plain, { budgetBytes: 4096, kind: 'generic', outputId: ID });
    assert.ok(
      Buffer.byteLength(plain) - genericPlain.omitted!.to < Buffer.byteLength(withError) - generic.omitted!.to,
      'an important tail gets more room',
    );
  });

  it('keeps the summary at the very end of command output in the tail', () => {
    const text = `${lines(5000)}TOTAL_SUMMARY=12345\n`;
    const preview = previewHeadTail(text, { budgetBytes: 24 * 1024, kind: 'command', outputId: ID });
    const { head, tail } = assertShape(text, preview, { budgetBytes: 24 * 1024, outputId: ID });
    assert.ok(!head.includes('TOTAL_SUMMARY'));
    assert.ok(tail.endsWith('TOTAL_SUMMARY=12345\n'));
  });

  it('property: fits the budget in UTF-8 bytes and never cuts a character (CJK, emoji, combining marks)', () => {
    const seed = seedFromEnv(909);
    const rng = makeRng(seed);
    for (let round = 0; round < 100; round++) {
      const text = mixedText(rng, rng.int(600, 40_000));
      const options: PreviewOptions = {
        budgetBytes: rng.int(MIN_PREVIEW_BUDGET + 300, 12_000),
        kind: rng.pick(['command', 'search', 'generic'] as const),
        outputId: rng.chance(0.7) ? ID : undefined,
        unavailableReason: rng.chance(0.5) ? 'ENOSPC: no space left on device' : undefined,
        copyComplete: rng.chance(0.5),
      };
      const context = `seed ${seed}, round ${round}, ${JSON.stringify(options)}`;
      const preview = previewHeadTail(text, options);
      const size = Buffer.byteLength(preview.text);
      assert.ok(size <= options.budgetBytes, `preview is ${size} bytes; ${context}`);
      if (!preview.truncated) {
        assert.equal(preview.text, text, context);
        continue;
      }
      assert.ok(!preview.text.includes('\uFFFD'), `a character was cut; ${context}`);
      assertShape(text, preview, options);
      // head + omitted + tail is the whole copy.
      const bytes = Buffer.from(text);
      const { from, to } = preview.omitted!;
      assert.equal(decode(bytes.subarray(0, from)) + decode(bytes.subarray(from, to)) + decode(bytes.subarray(to)), text, context);
    }
  });

  it('property: binary content (U+FFFD is 3 bytes) still fits the budget', () => {
    const seed = seedFromEnv(910);
    const rng = makeRng(seed);
    for (let round = 0; round < 60; round++) {
      const bytes = mixedBytes(rng, rng.int(100, 30_000), rng.pick([0.3, 0.9]));
      const budgetBytes = rng.int(MIN_PREVIEW_BUDGET + 300, 8000);
      const options: PreviewOptions = { budgetBytes, kind: rng.pick(['command', 'search', 'generic'] as const), outputId: ID };
      const preview = previewHeadTail(bytes, options);
      const size = Buffer.byteLength(preview.text);
      assert.ok(
        size <= budgetBytes,
        `seed ${seed}, round ${round}: preview of ${bytes.length} bytes is ${size} bytes, budget ${budgetBytes}`,
      );
      if (preview.truncated) assertShape(bytes, preview, options);
      else assert.equal(preview.text, decode(bytes));
    }
    const ff = new Uint8Array(3000).fill(0xff);
    assert.ok(Buffer.byteLength(previewHeadTail(ff, { budgetBytes: 4096, outputId: ID }).text) <= 4096);
  });
});

describe('hasImportantTail', () => {
  it('sees error words near the end', () => {
    for (const end of [
      'Error: boom',
      'Traceback (most recent call last):',
      'npm ERR! failed',
      'exit code 2',
      'thread panicked at',
      'Segmentation fault',
      'Permission denied',
      'FATAL',
    ]) {
      assert.equal(hasImportantTail(`${'ok\n'.repeat(100)}${end}\n`), true, end);
    }
  });

  it('sees a closing } or ] at the very end (JSON)', () => {
    assert.equal(hasImportantTail('{"a": [1, 2, 3]}'), true);
    assert.equal(hasImportantTail('[1, 2, 3]\n'), true);
    assert.equal(hasImportantTail('{"a": 1} trailing words'), false);
  });

  it('sees summary words', () => {
    for (const end of ['Total: 3', '12 passed', 'Build succeeded', 'Done in 3s', 'Summary', 'TOTAL_SUMMARY = 1'.replace('_', ' ')]) {
      assert.equal(hasImportantTail(`${'x\n'.repeat(50)}${end}`), true, end);
    }
  });

  it('is false for plain text, and only looks at the last ~2000 characters', () => {
    assert.equal(hasImportantTail('just some plain lines\n'.repeat(20)), false);
    const early = `error at the start\n${'plain text line\n'.repeat(200)}`; // 3200 chars after the error
    assert.equal(hasImportantTail(early), false);
    const late = `${'plain text line\n'.repeat(200)}error near the end\n${'plain\n'.repeat(100)}`;
    assert.equal(hasImportantTail(late), true);
    // Word boundaries: "terrors" is not "errors", "subtotals" not "totals".
    assert.equal(hasImportantTail('terrorsubtotals'), false);
  });
});
