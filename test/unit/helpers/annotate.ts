// RecallStore.annotate checks shared by test/unit/annotate.test.ts (in process) and
// test/system/annotate.test.ts (a real run_command and the store worker).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseJournal, type JournalHeader } from '../../../src/core/store/journal';
import { MAX_ANNOTATION_BYTES } from '../../../src/core/store/outputRows';
import type { RecallStore } from '../../../src/core/types';
import { callerExtra, rejectsWith } from './assertions';

/** A well-formed output ID that no store holds. */
export const UNKNOWN_ID = 'out_0123456789abcdef01234567';

/** The headers of the session's journal (`<file>.journal`), each record but a retain holding no content. */
export const journalHeaders = (file: string): JournalHeader[] => {
  const parsed = parseJournal(readFileSync(`${file}.journal`));
  assert.equal(parsed.bytesIgnored, 0);
  return parsed.entries.map((entry) => {
    if (entry.header.op !== 'retain') assert.equal(entry.content.length, 0, `a ${entry.header.op} record holds no content`);
    return entry.header;
  });
};

/** The extra as callers made it (retain's and annotations), the store's line facts aside. */
export const extraOf = async (store: RecallStore, outputId: string): Promise<Record<string, unknown> | undefined> =>
  callerExtra((await store.info(outputId)).extra);

/** The checks every store answers the same way: unknown ids, evicted copies, bad extras (none of which journal anything). */
export async function checkRefusals(
  store: RecallStore & { flush(): Promise<void> },
  ids: { evicted: string; live: string },
): Promise<void> {
  // Checkpointed first, so that no background checkpoint changes the journal's size meanwhile.
  await store.flush();
  const journalBytes = async (): Promise<number> => (await store.stats()).journalBytes;
  const before = await journalBytes();
  await rejectsWith(store.annotate(UNKNOWN_ID, { preview: 'x' }), 'NOT_FOUND');
  await rejectsWith(store.annotate('not-an-id', { preview: 'x' }), 'NOT_FOUND');
  await rejectsWith(store.annotate('', { preview: 'x' }), 'INVALID_ARGUMENT');
  const evicted = await rejectsWith(store.annotate(ids.evicted, { preview: 'x' }), 'EVICTED');
  assert.match(evicted.message, /was evicted/);
  assert.equal((await store.info(ids.evicted)).evicted, true);
  assert.equal(await extraOf(store, ids.evicted), undefined, 'an evicted copy is not annotated');

  // The limit is on the JSON of the extra given: '{"t":""}' is 8 bytes around the text.
  const atLimit = 'x'.repeat(MAX_ANNOTATION_BYTES - 8);
  assert.equal(MAX_ANNOTATION_BYTES, 256 * 1024);
  const over = await rejectsWith(store.annotate(ids.live, { t: `${atLimit}x` }), 'INVALID_ARGUMENT');
  assert.match(over.message, new RegExp(`${MAX_ANNOTATION_BYTES + 1} bytes as JSON, over the limit of ${MAX_ANNOTATION_BYTES}`));
  assert.deepEqual(over.details, { bytes: MAX_ANNOTATION_BYTES + 1, limitBytes: MAX_ANNOTATION_BYTES });
  // Multi-byte text counts in UTF-8 bytes.
  await rejectsWith(store.annotate(ids.live, { t: 'é'.repeat(MAX_ANNOTATION_BYTES / 2) }), 'INVALID_ARGUMENT');
  const notObjects: unknown[] = [null, undefined, [], ['a'], 'text', 42, true, new Map([['a', 1]]), new Date(), new (class Fields {})()];
  for (const extra of notObjects) {
    const error = await rejectsWith(store.annotate(ids.live, extra as Record<string, unknown>), 'INVALID_ARGUMENT', String(extra));
    assert.match(error.message, /takes a plain object/);
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  await rejectsWith(store.annotate(ids.live, cyclic), 'INVALID_ARGUMENT');
  await rejectsWith(store.annotate(ids.live, { big: 10n }), 'INVALID_ARGUMENT');
  assert.equal(await journalBytes(), before, 'a refused annotation journals nothing');
  assert.equal(await extraOf(store, ids.live), undefined);

  await store.annotate(ids.live, { t: atLimit });
  assert.equal((await extraOf(store, ids.live))?.t, atLimit, 'exactly at the limit is taken');
}
