import assert from 'node:assert/strict';
import { isRecallError, type RecallError, type RecallErrorCode } from '../../../src/core/errors';
import type { ReadResult, RecallStore, StoreStats } from '../../../src/core/types';

/** Awaits `work`, asserts it rejects (or throws) a RecallError with `code`, and returns the error. */
export async function rejectsWith(work: Promise<unknown> | (() => unknown), code: RecallErrorCode, note = ''): Promise<RecallError> {
  let outcome: unknown;
  try {
    outcome = await (typeof work === 'function' ? work() : work);
  } catch (error) {
    assert.ok(
      isRecallError(error, code),
      `expected RecallError ${code}${note ? ` (${note})` : ''}, got ${String((error as { code?: string }).code ?? '')} ${String(error)}`,
    );
    return error;
  }
  assert.fail(`expected RecallError ${code}${note ? ` (${note})` : ''}, but it resolved with ${JSON.stringify(outcome)?.slice(0, 200)}`);
}

export function throwsWith(work: () => unknown, code: RecallErrorCode): RecallError {
  try {
    work();
  } catch (error) {
    assert.ok(isRecallError(error, code), `expected RecallError ${code}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected RecallError ${code}, but it returned`);
}

export interface Paged {
  text: string;
  pages: { offset: number; maxBytes: number; page: ReadResult }[];
}

/** Pages through a whole copy, following nextOffset; `size` picks each page's maxBytes. */
export async function readThrough(
  store: RecallStore,
  outputId: string,
  size: (index: number) => number = () => 4096,
  from = 0,
): Promise<Paged> {
  const pages: Paged['pages'] = [];
  let text = '';
  let offset = from;
  for (let index = 0; ; index++) {
    const maxBytes = size(index);
    const page = await store.read(outputId, offset, maxBytes);
    pages.push({ offset, maxBytes, page });
    text += page.text;
    if (!page.hasMore) return { text, pages };
    assert.ok(page.nextOffset > offset, `page at ${offset} did not advance (nextOffset ${page.nextOffset})`);
    offset = page.nextOffset;
  }
}

/** The `read_tool_output {...}` call named in a preview or message. */
export function namedReadCall(text: string): { outputId: string; offset: number } {
  const match = /read_tool_output (\{[^}]*\})/.exec(text);
  assert.ok(match, `no read_tool_output call in: ${text.slice(0, 300)}`);
  return JSON.parse(match[1]) as { outputId: string; offset: number };
}

/** A copy's extra as its caller gave it: without the line facts the store records with every copy (`lines`). */
export function callerExtra(extra: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!extra) return undefined;
  const given = { ...extra };
  delete given.lines;
  return Object.keys(given).length > 0 ? given : undefined;
}

/** The output counts of stats(), without the journal's state (which depends on checkpoint timing). */
export function outputCounts(stats: StoreStats): Pick<StoreStats, 'outputs' | 'retainedBytes' | 'evicted'> {
  return { outputs: stats.outputs, retainedBytes: stats.retainedBytes, evicted: stats.evicted };
}
