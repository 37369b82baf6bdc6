import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecallError } from '../../src/core/errors';
import {
  charEstimator,
  estimateRequest,
  fitToolResult,
  guardRequest,
  type Message,
  type ResultPart,
  type RetainFn,
  type ToolResultPart,
} from '../../src/core/history';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { callerExtra } from './helpers/assertions';

// Every test retains into a real session store in a fresh folder, and reads back through it.
let dir: string;
let store: SessionStore;
let retain: RetainFn;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recall-history-'));
  store = await openStore({ dir });
  retain = store.retain.bind(store);
});
afterEach(async () => {
  await store.delete();
  await fs.rm(dir, { recursive: true, force: true });
});

/** A store whose session has ended: every retain fails with STORE_CLOSED, as in production. */
async function closedStoreRetain(): Promise<RetainFn> {
  const closed = await openStore({ dir });
  await closed.close();
  return closed.retain.bind(closed);
}

/** The real store's retain, except that contents matching `when` fail as an unwritable store would. */
const failingFor =
  (when: (content: string) => boolean): RetainFn =>
  async (content, meta) => {
    if (when(content)) throw new RecallError('STORE_UNAVAILABLE', 'The output could not be saved to the session file (ENOSPC: disk full).');
    return retain(content, meta);
  };

async function readAll(outputId: string, offset = 0): Promise<string> {
  let text = '';
  for (;;) {
    const page = await store.read(outputId, offset);
    text += page.text;
    if (!page.hasMore) return text;
    offset = page.nextOffset;
  }
}

const retainedCount = async (): Promise<number> => (await store.stats()).outputs;

/** The `read_tool_output {...}` call a marker or placeholder names. */
function namedCall(text: string): { outputId: string; offset: number } {
  const match = /read_tool_output (\{[^}]*\})/.exec(text);
  assert.ok(match, `no read_tool_output call in: ${text.slice(0, 200)}`);
  return JSON.parse(match[1]);
}

const lines = (count: number, prefix: string): string =>
  Array.from({ length: count }, (_, i) => `${prefix} line ${i + 1}: ${'lorem ipsum '.repeat(4)}`).join('\n');
const textOf = (part: ResultPart): string => (part.kind === 'text' ? part.text : assert.fail('not a text part'));
const afterMarker = (text: string): string => text.slice(text.indexOf('continue (pages') + 1).split(']\n')[1] ?? '';

describe('history retention: one result into history', () => {
  it('leaves a result that fits untouched and retains nothing', async () => {
    const parts: ResultPart[] = [{ kind: 'text', text: 'short' }];
    const fit = await fitToolResult(parts, { contextWindowTokens: 128_000, retain });
    assert.deepEqual(fit.parts, parts);
    assert.deepEqual(fit.cuts, []);
    assert.equal(await retainedCount(), 0);
  });

  it('retains first, then keeps head and tail within 32 KiB, readable back through the marker', async () => {
    const content = lines(3_000, 'plain');
    const fit = await fitToolResult([{ kind: 'text', text: content }], { contextWindowTokens: 128_000, retain, meta: { tool: 'grep' } });
    const [cut] = fit.cuts;
    const text = textOf(fit.parts[0]);
    assert.ok(Buffer.byteLength(text) <= 32 * 1024);
    assert.ok(text.startsWith('plain line 1:'));
    assert.equal(cut.importantTail, false);
    assert.equal((await store.info(cut.outputId!)).tool, 'grep');
    const call = namedCall(text);
    assert.equal(call.outputId, cut.outputId);
    assert.equal(await readAll(call.outputId), content);
    const gap = Buffer.from(content).subarray(call.offset).toString('utf8');
    assert.equal(await readAll(call.outputId, call.offset), gap);
    assert.deepEqual(fit.parts[0], {
      kind: 'text',
      text,
      retained: { outputId: call.outputId, totalBytes: Buffer.byteLength(content), complete: true },
    });
  });

  it('keeps a larger tail when the end carries an error', async () => {
    const plain = await fitToolResult([{ kind: 'text', text: lines(3_000, 'plain') }], { contextWindowTokens: 128_000, retain });
    const failing = lines(3_000, 'build') + '\nError: build failed with 3 errors';
    const important = await fitToolResult([{ kind: 'text', text: failing }], { contextWindowTokens: 128_000, retain });
    assert.equal(important.cuts[0].importantTail, true);
    const tail = afterMarker(textOf(important.parts[0]));
    assert.ok(tail.endsWith('Error: build failed with 3 errors'));
    assert.ok(tail.length > 2 * afterMarker(textOf(plain.parts[0])).length, 'an important tail gets a larger share');
  });

  it('uses the smaller per-result cap for a small context window', async () => {
    const fit = await fitToolResult([{ kind: 'text', text: lines(3_000, 'x') }], { contextWindowTokens: 32_000, retain });
    assert.ok(Buffer.byteLength(textOf(fit.parts[0])) <= 19_200);
  });

  it('splits the budget across text parts by size and passes images through untouched', async () => {
    const image = { kind: 'other' as const, value: { mime: 'image/png', data: 'iVBOR'.repeat(50_000) } };
    const big = lines(1_500, 'big'); // ~3× the small one
    const small = lines(500, 'small');
    const fit = await fitToolResult([{ kind: 'text', text: big }, image, { kind: 'text', text: small }], {
      contextWindowTokens: 128_000,
      retain,
    });
    assert.equal(fit.parts[1], image);
    const [bigBytes, smallBytes] = [textOf(fit.parts[0]), textOf(fit.parts[2])].map((t) => Buffer.byteLength(t));
    assert.ok(bigBytes + smallBytes <= 32 * 1024);
    const sizeRatio = Buffer.byteLength(big) / Buffer.byteLength(small);
    assert.ok(Math.abs(bigBytes / smallBytes / sizeRatio - 1) < 0.05, `shares ${bigBytes}:${smallBytes}, sizes ${sizeRatio}:1`);
    assert.deepEqual(
      fit.cuts.map((c) => c.index),
      [0, 2],
    );
    assert.equal(await readAll(fit.cuts[0].outputId!), big);
    assert.equal(await readAll(fit.cuts[1].outputId!), small);
  });

  it('says in the marker when the copy could not be saved', async () => {
    const fit = await fitToolResult([{ kind: 'text', text: lines(3_000, 'x') }], {
      contextWindowTokens: 128_000,
      retain: await closedStoreRetain(),
    });
    const text = textOf(fit.parts[0]);
    assert.match(text, /NOT retained \(saving the copy failed: STORE_CLOSED: Session \S+ is closed/);
    assert.doesNotMatch(text, /read_tool_output/);
    assert.equal(fit.cuts[0].outputId, undefined);
    assert.match(fit.cuts[0].unavailableReason!, /STORE_CLOSED/);
    assert.equal('retained' in fit.parts[0], false);
  });

  it('records the preview that replaced each part with its copy (annotate), exactly', async () => {
    const image = { kind: 'other' as const, value: 'png' };
    const fit = await fitToolResult([{ kind: 'text', text: lines(3_000, 'a') }, image, { kind: 'text', text: lines(2_000, '數據') }], {
      contextWindowTokens: 128_000,
      retain,
      annotate: store.annotate.bind(store),
      meta: { tool: 'grep', extra: { query: 'x' } },
    });
    assert.equal(fit.cuts.length, 2);
    for (const cut of fit.cuts) {
      const info = await store.info(cut.outputId!);
      const shown = textOf(fit.parts[cut.index]);
      assert.ok(Buffer.from(info.extra?.preview as string).equals(Buffer.from(shown)), 'extra.preview is the part the model gets');
      assert.equal(info.extra?.query, 'x', 'the meta recorded at retain time stays');
    }
    // Without annotate nothing is recorded (as before).
    const plain = await fitToolResult([{ kind: 'text', text: lines(3_000, 'b') }], { contextWindowTokens: 128_000, retain });
    assert.equal((await store.info(plain.cuts[0].outputId!)).extra?.preview, undefined);
  });

  it('a failed annotation leaves the fitted result intact and is reported', async () => {
    const content = lines(3_000, 'c');
    const errors: string[] = [];
    const fit = await fitToolResult([{ kind: 'text', text: content }], {
      contextWindowTokens: 128_000,
      retain,
      annotate: () => Promise.reject(new RecallError('STORE_CLOSED', 'Session s1 is closed.')),
      onPreviewNotRecorded: (message) => errors.push(message),
    });
    const [cut] = fit.cuts;
    assert.ok(cut.outputId);
    const text = textOf(fit.parts[0]);
    assert.equal(namedCall(text).outputId, cut.outputId, 'the marker still names the copy');
    assert.equal(await readAll(cut.outputId), content);
    assert.deepEqual(errors, [
      `the preview the model received could not be recorded for ${cut.outputId}: STORE_CLOSED: Session s1 is closed.`,
    ]);
  });

  it('rejects a bad context window before retaining anything', async () => {
    await assert.rejects(fitToolResult([{ kind: 'text', text: 'x' }], { contextWindowTokens: Number.NaN, retain }), {
      code: 'INVALID_ARGUMENT',
    });
    assert.equal(await retainedCount(), 0);
  });
});

/** System prompt, user turn, then `rounds` tool calls each returning `resultChars` of output. */
function conversation(rounds: number, resultChars: number): Message[] {
  const messages: Message[] = [
    { role: 'system', parts: [{ kind: 'text', text: 'You are a coding agent.' }] },
    { role: 'user', parts: [{ kind: 'text', text: 'Find the failing test.' }] },
  ];
  for (let i = 1; i <= rounds; i++) {
    messages.push({ role: 'assistant', parts: [{ kind: 'toolCall', callId: `c${i}`, name: 'run', input: { n: i } }] });
    const text = `result ${i}\n` + 'r'.repeat(resultChars - `result ${i}\n`.length);
    messages.push({ role: 'tool', parts: [{ kind: 'toolResult', callId: `c${i}`, name: 'run', parts: [{ kind: 'text', text }] }] });
  }
  return messages;
}
const resultAt = (messages: Message[], round: number): ToolResultPart => messages[1 + 2 * round].parts[0] as ToolResultPart;

describe('history retention: the global guard', () => {
  const contextWindowTokens = 20_000; // limit 15,000; each result below is 6,000 tokens at 2 chars/token

  it('sends the request unchanged when it fits', async () => {
    const messages = conversation(2, 12_000);
    const guarded = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain });
    assert.equal(guarded.fits, true);
    assert.deepEqual(guarded.replaced, []);
    assert.deepEqual(guarded.messages, messages);
    assert.equal(await retainedCount(), 0);
  });

  it('replaces the oldest results first, keeps the newest, and every one reads back', async () => {
    const messages = conversation(5, 12_000);
    const snapshot = structuredClone(messages);
    const guarded = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain });
    assert.deepEqual(messages, snapshot, 'the input is not modified');
    assert.deepEqual(
      guarded.replaced.map((r) => r.callId),
      ['c1', 'c2', 'c3'],
    );
    assert.equal(resultAt(guarded.messages, 4), resultAt(messages, 4));
    assert.equal(resultAt(guarded.messages, 5), resultAt(messages, 5));
    for (const round of [1, 2, 3]) {
      const placeholder = resultAt(guarded.messages, round);
      assert.equal(placeholder.replaced, true);
      const text = textOf(placeholder.parts[0]);
      const call = namedCall(text);
      assert.equal(call.offset, 0);
      assert.match(text, new RegExp(`read_tool_output \\{"outputId":"${call.outputId}","offset":0\\}`));
      assert.match(text, /12000 bytes are retained/);
      assert.equal(await readAll(call.outputId), textOf(resultAt(messages, round).parts[0]));
    }
    const after = await estimateRequest(guarded.messages, charEstimator());
    assert.equal(after.total, guarded.tokensAfter);
    assert.ok(after.total <= 0.75 * contextWindowTokens);
    assert.equal(guarded.fits, true);
    const info = await store.info(guarded.replaced[0].outputIds[0]);
    assert.deepEqual([info.tool, callerExtra(info.extra)], ['run', { callId: 'c1', source: 'history-guard' }]);
  });

  it('keeps the outputId of a result that was already retained, and leaves images in place', async () => {
    const messages = conversation(3, 12_000);
    const image = { kind: 'other' as const, value: 'png' };
    const first = resultAt(messages, 1);
    first.parts = [
      { kind: 'text', text: textOf(first.parts[0]), retained: { outputId: 'out_earlier', totalBytes: 99_999, complete: false } },
      image,
    ];
    const guarded = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain, otherPartTokens: 0 });
    assert.deepEqual(guarded.replaced, [{ callId: 'c1', outputIds: ['out_earlier'], failures: [] }]);
    const placeholder = resultAt(guarded.messages, 1);
    assert.match(
      textOf(placeholder.parts[0]),
      /99999 bytes are retained: call read_tool_output \{"outputId":"out_earlier","offset":0\}.*incomplete/,
    );
    assert.equal(placeholder.parts[1], image);
    assert.equal(await retainedCount(), 0, 'nothing was retained twice');
  });

  it('does not retain the same result again when the host resends the original history', async () => {
    const messages = conversation(5, 12_000);
    const copies = new Map();
    const first = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain, copies });
    const second = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain, copies });
    assert.deepEqual(second.replaced, first.replaced);
    assert.equal(await retainedCount(), 3);
  });

  it('replaces readable results before one whose copy failed', async () => {
    const messages = conversation(5, 12_000);
    const guarded = await guardRequest(messages, {
      contextWindowTokens,
      estimator: charEstimator(),
      retain: failingFor((c) => c.startsWith('result 1\n')),
    });
    assert.deepEqual(
      guarded.replaced.map((r) => r.callId),
      ['c2', 'c3', 'c4'],
    );
    assert.equal(resultAt(guarded.messages, 1), resultAt(messages, 1));
    assert.equal(guarded.fits, true);
  });

  it('says in the placeholder when a result had to go without a copy', async () => {
    const messages = conversation(5, 12_000);
    const guarded = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain: await closedStoreRetain() });
    assert.deepEqual(
      guarded.replaced.map((r) => r.callId),
      ['c1', 'c2', 'c3'],
    );
    assert.equal(guarded.replaced[0].failures.length, 1);
    assert.match(guarded.replaced[0].failures[0], /^STORE_CLOSED: Session \S+ is closed/);
    const text = textOf(resultAt(guarded.messages, 1).parts[0]);
    assert.match(text, /12000 bytes could NOT be saved \(STORE_CLOSED: .*\), so they cannot be read back/);
    assert.doesNotMatch(text, /outputId/);
    assert.equal(guarded.fits, true);
  });

  it('reports when even replacing every result cannot make the request fit', async () => {
    const messages = conversation(2, 12_000);
    messages[1] = { role: 'user', parts: [{ kind: 'text', text: 'u'.repeat(80_000) }] };
    const guarded = await guardRequest(messages, { contextWindowTokens, estimator: charEstimator(), retain });
    assert.equal(guarded.fits, false);
    assert.deepEqual(
      guarded.replaced.map((r) => r.callId),
      ['c1', 'c2'],
    );
    assert.ok(guarded.tokensAfter > guarded.limitTokens);
  });

  it('rejects a bad context window or threshold', async () => {
    const base = { estimator: charEstimator(), retain };
    await assert.rejects(
      guardRequest([], { ...base, contextWindowTokens: 0 }),
      (e: RecallError) => e.code === 'INVALID_ARGUMENT' && /context window/.test(e.message),
    );
    await assert.rejects(guardRequest([], { ...base, contextWindowTokens: Number.NaN }), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(
      guardRequest([], { ...base, contextWindowTokens, threshold: 1.5 }),
      /threshold must be a share of the context window in \(0, 1\]/,
    );
  });
});
