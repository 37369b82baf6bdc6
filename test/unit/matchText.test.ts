import assert from 'node:assert/strict';
import { MATCH_LINE_BYTES, MATCH_WINDOW_BYTES, matchText } from '../../src/core/matchText';

describe('matchText: what a search match shows of its line', () => {
  it('a line up to MATCH_LINE_BYTES is shown whole, without a window (carriage return dropped)', () => {
    const line = `settlement_ref=ZX9-7F3A-END ${'x'.repeat(300)} total=48213.07`;
    const bytes = Buffer.from(`first\n${line}\r\nlast\n`);
    const at = bytes.indexOf('total');
    assert.deepEqual(matchText(bytes, 6, at), { text: line });
    const exact = Buffer.from(`${'y'.repeat(MATCH_LINE_BYTES - 5)}match`);
    assert.deepEqual(matchText(exact, 0, exact.indexOf('match')), { text: exact.toString() });
  });

  it('a longer line gives a window around the match with its byte range, and "…" where it is cut', () => {
    const line = `${'a'.repeat(5000)}NEEDLE=42${'b'.repeat(5000)}`;
    const bytes = Buffer.from(`head\n${line}\n`);
    const at = bytes.indexOf('NEEDLE');
    const shown = matchText(bytes, 5, at, 1000);
    assert.ok(shown.window);
    const { from, to, lineBytes } = shown.window;
    assert.equal(lineBytes, line.length);
    assert.ok(from - 1000 <= at && at + 9 <= to - 1000, 'the window holds the match');
    assert.ok(to - from <= MATCH_WINDOW_BYTES);
    assert.equal(shown.text, `…${bytes.subarray(from - 1000, to - 1000).toString()}…`);
    assert.ok(shown.text.includes('NEEDLE=42'));
  });

  it('never cuts a character, and says when the line began before the bytes given', () => {
    const line = '日本語'.repeat(400); // 3600 bytes
    const bytes = Buffer.from(line);
    const at = Buffer.byteLength('日本語'.repeat(200));
    const shown = matchText(bytes, 0, at, 0, true);
    assert.ok(!shown.text.includes('\uFFFD'));
    assert.ok(shown.text.startsWith('…') && shown.text.endsWith('…'));
    assert.equal(shown.window?.lineBytes, undefined, 'the line length is unknown');
    assert.equal(shown.window!.from % 3, 0);
  });
});
