// The inspector numbers a copy's lines from its line facts (`extra.lines`: its run_command or run_code
// call's, or the store's count at retain), never reading the copy whole (issue 41 §2); for a copy
// retained before they were recorded, the store counts them where it runs (`lineFacts`).
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { lineAt, lineIndexOf } from '../../src/extension/inspector/copyLineIndex';
import { InspectorSession, type InspectorHost } from '../../src/extension/inspector/requestHandler';
import { runCommand } from '../../src/core/tools/runCommand';
import { runCodeTool } from '../../src/core/tools/runCode';
import { RecallError } from '../../src/core/errors';
import { KiB } from '../../src/core/limits';
import { LineTally } from '../../src/core/previewSource';
import { countNewlines } from '../../src/core/utf8';
import { openStore } from '../../src/core/workers/stores';
import type { RecallStore } from '../../src/core/types';
import type { DescribeResult, PageResult } from '../../webview/protocol';
import { useCommandFixture } from '../unit/helpers/commandFixture';
import { makeRng } from '../unit/helpers/prng';
import { useTempDirs } from '../unit/helpers/tempDirs';

/** Lines of 1 to 4-byte characters and of every length, so 16 KiB blocks start inside characters. */
function mixedLines(lines: number): string {
  const rng = makeRng(41);
  const pieces = ['a', 'é', '日', '😀', 'ERROR x', ''];
  return Array.from({ length: lines }, () =>
    Array.from({ length: rng.int(0, 60) }, () => pieces[rng.int(0, pieces.length - 1)]).join(''),
  ).join('\n');
}

/** The store, but a whole-copy read fails the test. */
function noWholeReads(store: RecallStore): RecallStore {
  const guarded = Object.create(store) as RecallStore;
  guarded.readAll = () => Promise.reject(new RecallError('INVALID_ARGUMENT', 'the copy was read whole'));
  return guarded;
}

/** An inspector for `outputId` whose requests are answered directly. */
function inspector(store: RecallStore, outputId: string): InspectorSession {
  const host: InspectorHost = {
    store: async () => store,
    post: () => undefined,
    previewBytes: () => 24 * KiB,
    actions: { copyText: async () => undefined, openInEditor: async () => undefined, saveAs: async () => false },
  };
  return new InspectorSession(host, outputId);
}

describe('inspector: line numbers from the facts recorded with the copy', function () {
  this.timeout(60_000);
  const fx = useCommandFixture('inspector-lines');
  const dirs = useTempDirs('inspector-old-lines');

  it('run_command records them; they number every line as a count over the whole copy does', async () => {
    const file = path.join(fx.work, 'mixed.txt');
    writeFileSync(file, mixedLines(6000));
    const result = await runCommand({ command: `cat "${file}"`, cwd: fx.work }, fx.store);
    assert.ok(result.outputId);
    const info = await fx.store.info(result.outputId);
    const facts = await fx.store.lineFacts(result.outputId);
    assert.deepEqual(facts, info.extra?.lines, 'the facts run_command recorded');
    const index = lineIndexOf(facts);
    const bytes = await fx.store.readAll(result.outputId);
    assert.equal(index.totalLines, countNewlines(bytes) + (bytes.at(-1) === 0x0a ? 0 : 1));
    const rng = makeRng(4100);
    const offsets = [0, bytes.length, ...Array.from({ length: 150 }, () => rng.int(0, bytes.length))];
    for (const offset of offsets) {
      // A boundary at or before the offset: the lines a page there would start on.
      let at = offset;
      while (at < bytes.length && (bytes[at] & 0xc0) === 0x80) at--;
      const counted = Math.min(countNewlines(bytes, 0, at) + 1, index.totalLines);
      assert.equal(await lineAt(index, fx.store, result.outputId, at), counted, `offset ${at}`);
    }
  });

  it('describe and page answer without reading the copy whole', async () => {
    const result = await runCommand({ command: 'seq 1 100000', cwd: fx.work }, fx.store);
    const session = inspector(noWholeReads(fx.store), result.outputId!);
    const described: DescribeResult = await session.describe();
    assert.equal(described.totalLines, 100000);
    assert.equal(described.unreadable, undefined);
    assert.equal(described.preview.source, 'recorded');
    const offset = Buffer.byteLength(Array.from({ length: 54321 }, (_, i) => `${i + 1}\n`).join(''));
    const page: PageResult = await session.page({ outputId: result.outputId!, offset, maxBytes: 4096, snap: 'line' });
    assert.equal(page.firstLine, 54322);
    assert.ok(page.text.startsWith('54322\n'));
  });

  it('run_code records them for its return value', async () => {
    const { result } = await runCodeTool(
      { code: "return Array.from({ length: 50000 }, (_, i) => 'row ' + i).join('\\n');" },
      { callTool: async () => ({ text: '' }), store: fx.store, previewBytes: 24 * KiB },
    );
    assert.ok(result.valueOutputId);
    const described = await inspector(noWholeReads(fx.store), result.valueOutputId).describe();
    assert.equal(described.totalLines, 50000);
  });

  it('a copy retained without them (a hook, @recall) gets them from the store at retain', async () => {
    const text = mixedLines(3000);
    const { outputId } = await fx.store.retain(text, { tool: 'Bash', title: 'hook copy', extra: { preview: 'head…' } });
    const info = await fx.store.info(outputId);
    assert.deepEqual(info.extra?.lines, new LineTally().write(Buffer.from(text)).facts());
    assert.equal(info.extra?.preview, 'head…', "the caller's extra is kept");
    const described = await inspector(noWholeReads(fx.store), outputId).describe();
    assert.equal(described.totalLines, 3000);
  });

  it('a copy retained before line facts were recorded is counted by the store, not read whole here', async () => {
    // test/fixtures/session-v1: a session the previous release wrote, its copies without extra.lines.
    const fixture = path.resolve(__dirname, '../fixtures/session-v1');
    const dir = dirs.make();
    for (const name of ['v1session.sqlite', 'v1session.sqlite.journal']) copyFileSync(path.join(fixture, name), path.join(dir, name));
    const ids = JSON.parse(readFileSync(path.join(fixture, 'ids.json'), 'utf8')) as Record<'text' | 'journalled', string>;
    const store = await openStore({ dir, sessionId: 'v1session' });
    try {
      for (const outputId of [ids.text, ids.journalled]) {
        const info = await store.info(outputId);
        assert.equal(info.extra?.lines, undefined, 'an old copy has no facts');
        const facts = await store.lineFacts(outputId);
        assert.deepEqual(facts, new LineTally().write(await store.readAll(outputId)).facts());
        const described = await inspector(noWholeReads(store), outputId).describe();
        assert.equal(described.totalLines, facts.lines);
      }
    } finally {
      await store.close();
    }
  });
});
