// The API other extensions get from `getExtension('tool-output-recall.tool-output-recall').exports`:
// retain their own large results in the user's session, read and search them back.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolOutputRecallApi } from '../../src/extension/api';
import { EXTENSION_ID, OUTPUT_ID, readPage, recallApi } from './helpers/host';

/** The engine's errors as the API throws them: a RecallError with a stable code. */
const code =
  (expected: string) =>
  (error: unknown): boolean => {
    assert.equal((error as { name?: string }).name, 'RecallError', String(error));
    assert.equal((error as { code?: string }).code, expected, String(error));
    return true;
  };

describe('extension API', () => {
  let api: ToolOutputRecallApi;
  before(async () => {
    api = await recallApi();
  });

  it('is what the extension exports, version 1', () => {
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.exports, api);
    assert.equal(api.version, 1);
    for (const name of ['sessionId', 'retain', 'read', 'search'] as const) assert.equal(typeof api[name], 'function', name);
  });

  it('sessionId() names the current session, stably', async () => {
    const id = await api.sessionId();
    assert.equal(typeof id, 'string');
    assert.ok(id.length > 0);
    assert.equal(await api.sessionId(), id);
  });

  it('retain() keeps text whole; read() pages it by byte offset', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `entry ${i + 1}: ✓ done`).join('\n');
    const retained = await api.retain(text, { tool: 'api-test', title: 'entries', extra: { kind: 'test' } });
    assert.match(retained.outputId, OUTPUT_ID);
    assert.equal(retained.totalBytes, Buffer.byteLength(text));
    assert.equal(retained.complete, true);
    assert.equal(retained.droppedBytes, 0);

    let offset = 0;
    let whole = '';
    for (;;) {
      const page = await api.read(retained.outputId, offset, 1000);
      assert.ok(Buffer.byteLength(page.text) <= 1000);
      whole += page.text;
      if (!page.hasMore) break;
      offset = page.nextOffset;
    }
    assert.equal(whole, text);
    // The same copy through the tool a model would use.
    assert.equal((await readPage(retained.outputId, 0, 20)).text, 'entry 1: ✓ done\nen');
  });

  it('retain() takes bytes too, and keeps what the producer says is incomplete as incomplete', async () => {
    const bytes = new TextEncoder().encode('binary-ish \u0000 content\n'.repeat(100));
    const retained = await api.retain(bytes, { tool: 'api-test', complete: false, droppedBytes: 5000 });
    assert.equal(retained.totalBytes, bytes.byteLength);
    assert.equal(retained.complete, false);
    assert.equal(retained.droppedBytes, 5000);
    const page = await api.read(retained.outputId);
    assert.equal(page.complete, false);
    assert.ok(page.text.startsWith('binary-ish \u0000 content'));
  });

  it('search() finds text and regular expressions with readable offsets', async () => {
    const text = ['alpha', 'Beta 1', 'gamma', 'beta 2', 'BETA 3', 'delta'].join('\n');
    const { outputId } = await api.retain(text, { tool: 'api-test' });
    const all = await api.search(outputId, 'beta');
    assert.deepEqual(
      all.matches.map((m) => m.line),
      [2, 4, 5],
      'case-insensitive by default',
    );
    const exact = await api.search(outputId, 'beta', { caseSensitive: true });
    assert.deepEqual(
      exact.matches.map((m) => m.line),
      [4],
    );
    const regex = await api.search(outputId, '^[a-z]+$', { regex: true, caseSensitive: true });
    assert.deepEqual(
      regex.matches.map((m) => m.text),
      ['alpha', 'gamma', 'delta'],
    );
    const limited = await api.search(outputId, 'a', { maxMatches: 2 });
    assert.equal(limited.matches.length, 2);
    assert.equal(limited.truncated, true);
    for (const match of all.matches) {
      assert.ok((await api.read(outputId, match.offset, 4)).text.toLowerCase().startsWith('beta'));
      assert.equal((await api.read(outputId, match.lineOffset, 4)).text.toLowerCase(), 'beta');
    }
    assert.deepEqual((await api.search(outputId, 'omega')).matches, []);
  });

  it('throws RecallErrors with stable codes', async () => {
    const { outputId } = await api.retain('é'.repeat(10), { tool: 'api-test' });
    await assert.rejects(api.read('out_0123456789abcdef01234567'), code('NOT_FOUND'));
    await assert.rejects(api.read(outputId, 1), (error: unknown) => {
      code('MID_CHARACTER_OFFSET')(error);
      assert.deepEqual((error as { details?: unknown }).details, { before: 0, after: 2 });
      return true;
    });
    await assert.rejects(api.read(outputId, 21), code('OFFSET_OUT_OF_RANGE'));
    await assert.rejects(api.read(outputId, 0, 0), code('INVALID_ARGUMENT'));
    await assert.rejects(api.search(outputId, '(', { regex: true }), code('INVALID_ARGUMENT'));
  });
});
