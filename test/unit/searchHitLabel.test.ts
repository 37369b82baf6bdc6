// Search All Outputs' hit rows (src/extension/inspector/searchHitLabel.ts): the line as a label and
// where its match is, from the engine's match (a byte offset and the line, or a window of a long
// line, as matchText makes them), for plain text and regular expressions, multi-byte text, terminal
// colour codes and long lines; and "how long ago" in the display language.
import assert from 'node:assert/strict';
import { matchText } from '../../src/core/matchText';
import type { SearchMatch } from '../../src/core/types';
import { charsOfBytes, hitLabel, matchStart, relativeTime, type HitQuery } from '../../src/extension/inspector/searchHitLabel';

/** The engine's match of `needle`'s first occurrence (at or after `from`) in `content`. */
function matchIn(content: string, needle: string, from = 0): SearchMatch {
  const bytes = Buffer.from(content, 'utf8');
  const offset = bytes.indexOf(Buffer.from(needle, 'utf8'), Buffer.byteLength(content.slice(0, from), 'utf8'));
  assert.ok(offset >= 0, `${needle} is in the content`);
  const lineOffset = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
  const line = bytes.subarray(0, offset).filter((byte) => byte === 0x0a).length + 1;
  return { offset, lineOffset, line, ...matchText(bytes, lineOffset, offset) };
}

const plain = (pattern: string, caseSensitive = false): HitQuery => ({ pattern, regex: false, caseSensitive });
const shown = (label: { text: string; highlight?: [number, number] }): string | undefined =>
  label.highlight && label.text.slice(...label.highlight);

describe('Search All Outputs: hit labels', () => {
  it('counts UTF-16 units of a UTF-8 prefix (CJK, emoji)', () => {
    assert.equal(charsOfBytes('abc', 2), 2);
    assert.equal(charsOfBytes('編譯 ok', 6), 2);
    assert.equal(charsOfBytes('🎉x', 4), 2, 'an emoji is 4 bytes and 2 units');
    assert.equal(charsOfBytes('ab', 99), 2, 'clamped to the text');
  });

  it('highlights a plain text in its line, whatever the case, after multi-byte text', () => {
    const content = 'first line\ncompiling 編譯單元 🎉 ERROR: total is undefined\nlast\n';
    const match = matchIn(content, 'ERROR');
    assert.equal(match.line, 2);
    const label = hitLabel(match, plain('error'));
    assert.equal(label.text, 'compiling 編譯單元 🎉 ERROR: total is undefined');
    assert.equal(shown(label), 'ERROR');
  });

  it('highlights what a regular expression matched, and nothing when JavaScript cannot run the pattern', () => {
    const match = matchIn('request id=req-7f3a91 failed: upstream timeout\n', 'req-');
    assert.equal(shown(hitLabel(match, { pattern: 'req-[0-9a-f]+', regex: true, caseSensitive: true })), 'req-7f3a91');
    assert.equal(shown(hitLabel(match, { pattern: 'REQ-\\w+ failed', regex: true, caseSensitive: false })), 'req-7f3a91 failed');
    // RE2's \x{…} is no JavaScript escape with the u flag: the line shows, without a highlight.
    const label = hitLabel(match, { pattern: '(?i)req-\\x{37}', regex: true, caseSensitive: false });
    assert.equal(label.text, 'request id=req-7f3a91 failed: upstream timeout');
    assert.equal(label.highlight, undefined);
  });

  it('drops terminal colour codes, control characters and indentation, and keeps the highlight on the match', () => {
    const content = '\t   \x1b[32m✓\x1b[0m test 12 \x1b[1;31mFAIL\x1b[0m pages\r\n';
    const label = hitLabel(matchIn(content, 'FAIL'), plain('FAIL', true));
    assert.equal(label.text, '✓ test 12 FAIL pages');
    assert.equal(shown(label), 'FAIL');
  });

  it('brings a match far into a line forward, and cuts a long label', () => {
    const content = `${'x'.repeat(200)} needle ${'y'.repeat(100)}\n`;
    const label = hitLabel(matchIn(content, 'needle'), plain('needle'));
    assert.ok(label.text.startsWith('…x'), label.text);
    assert.equal(shown(label), 'needle');
    assert.ok(label.text.length <= 160, `${label.text.length} characters`);
  });

  it('places a match in a window of a very long line (the engine sends a window, led by "…")', () => {
    const content = `${'a'.repeat(3000)} 測試 target ${'b'.repeat(3000)}\n`;
    const match = matchIn(content, 'target');
    assert.ok(match.window, 'a window, not the whole line');
    assert.ok(match.text.startsWith('…'));
    assert.equal(match.text.slice(matchStart(match), matchStart(match) + 6), 'target');
    assert.equal(shown(hitLabel(match, plain('TARGET'))), 'target');
    // A window that starts the line has no "…".
    const early = matchIn(`target ${'c'.repeat(3000)}\n`, 'target');
    assert.ok(early.window && !early.text.startsWith('…'));
    assert.equal(shown(hitLabel(early, plain('target'))), 'target');
  });

  it('a case-sensitive plain text that does not match at the offset is not highlighted', () => {
    const label = hitLabel(matchIn('Error here\n', 'Error'), plain('error', true));
    assert.equal(label.highlight, undefined);
  });

  it('says how long ago, in the display language', () => {
    const now = Date.UTC(2026, 0, 10, 12);
    assert.equal(relativeTime(now - 5 * 60_000, now, 'en'), '5 minutes ago');
    assert.equal(relativeTime(now - 3 * 3_600_000, now, 'en'), '3 hours ago');
    assert.equal(relativeTime(now - 86_400_000, now, 'en'), 'yesterday');
    assert.equal(relativeTime(now - 5 * 60_000, now, 'zh-cn'), '5分钟前');
    assert.equal(relativeTime(now - 1000, now, 'not a language!'), '1 second ago', 'an unknown language falls back to English');
  });
});
