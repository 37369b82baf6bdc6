import assert from 'node:assert/strict';
import {
  MESSAGE_OVERHEAD_TOKENS,
  OTHER_PART_TOKENS,
  charEstimator,
  estimateRequest,
  measureEstimate,
  modelEstimator,
  type Message,
} from '../../src/core/history';

const conversation: Message[] = [
  { role: 'system', parts: [{ kind: 'text', text: 'x'.repeat(400) }] },
  { role: 'assistant', parts: [{ kind: 'toolCall', callId: 'c1', name: 'grep', input: { q: 'abc' } }] },
  {
    role: 'tool',
    parts: [
      {
        kind: 'toolResult',
        callId: 'c1',
        parts: [
          { kind: 'text', text: 'y'.repeat(1_000) },
          { kind: 'other', value: { image: 'png' } },
        ],
      },
    ],
  },
];

describe('history estimate: characters per token', () => {
  it('counts tool results at 2 chars per token and other text at 4', async () => {
    const estimator = charEstimator();
    assert.equal(await estimator.countTokens('a'.repeat(1_000), 'toolResult'), 500);
    assert.equal(await estimator.countTokens('a'.repeat(1_000), 'other'), 250);
    assert.equal(await estimator.countTokens('a'.repeat(1_001)), 251);
  });

  it('estimates a request part by part, with images at a fixed cost', async () => {
    const { total, perPart } = await estimateRequest(conversation, charEstimator());
    const call = Math.ceil('grep {"q":"abc"}'.length / 4);
    assert.deepEqual(perPart, [[100], [call], [500 + OTHER_PART_TOKENS]]);
    assert.equal(total, 100 + call + 500 + OTHER_PART_TOKENS + 3 * MESSAGE_OVERHEAD_TOKENS);
    const cheaperImages = await estimateRequest(conversation, charEstimator(), { otherPartTokens: 10 });
    assert.equal(cheaperImages.total, total - OTHER_PART_TOKENS + 10);
  });

  it('measures an estimate without needing a test harness', async () => {
    const measured = await measureEstimate(conversation, charEstimator());
    assert.equal(measured.tokens, (await estimateRequest(conversation, charEstimator())).total);
    assert.equal(measured.textChars, 400 + 'grep{"q":"abc"}'.length + 1_000);
    assert.ok(measured.elapsedMs >= 0);
  });
});

describe('history estimate: the model counter adapter', () => {
  it('falls back to the character estimate when the host has no counter', async () => {
    assert.equal(await modelEstimator(undefined).countTokens('a'.repeat(100), 'toolResult'), 50);
  });

  it('uses the model counter and counts each distinct text once', async () => {
    const seen: string[] = [];
    const estimator = modelEstimator(async (text) => {
      seen.push(text);
      return text.length / 3;
    });
    assert.equal(await estimator.countTokens('abcdef'), 2);
    assert.equal(await estimator.countTokens('abcdef', 'toolResult'), 2);
    const both = await Promise.all([estimator.countTokens('z'.repeat(10)), estimator.countTokens('z'.repeat(10))]);
    assert.deepEqual(both, [4, 4]);
    assert.deepEqual(seen, ['abcdef', 'z'.repeat(10)]);
  });

  it('never has more counter calls in flight than its concurrency', async () => {
    let active = 0;
    let peak = 0;
    const estimator = modelEstimator(
      async (text) => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        return text.length;
      },
      { concurrency: 2 },
    );
    const texts = Array.from({ length: 9 }, (_, i) => 't'.repeat(i + 1));
    const counts = await Promise.all(texts.map((t) => estimator.countTokens(t)));
    assert.deepEqual(
      counts,
      texts.map((t) => t.length),
    );
    assert.equal(peak, 2);
  });

  it('falls back per text when the counter fails or answers nonsense, and asks again next time', async () => {
    let calls = 0;
    const estimator = modelEstimator(async (text) => {
      calls++;
      if (text === 'broken') throw new Error('counter offline');
      if (text === 'nan') return Number.NaN;
      return 7;
    });
    assert.equal(await estimator.countTokens('broken', 'toolResult'), 3); // 6 chars / 2
    assert.equal(await estimator.countTokens('nan'), 1); // 3 chars / 4
    assert.equal(await estimator.countTokens('fine'), 7);
    assert.equal(await estimator.countTokens('broken', 'toolResult'), 3);
    assert.equal(calls, 4, 'a failed count is retried, a good one is cached');
    assert.equal(await estimator.countTokens('fine'), 7);
    assert.equal(calls, 4);
  });

  it('forgets the oldest texts beyond its cache size', async () => {
    const seen: string[] = [];
    const estimator = modelEstimator(
      async (text) => {
        seen.push(text);
        return 1;
      },
      { cacheEntries: 2 },
    );
    for (const text of ['a', 'b', 'c', 'a']) await estimator.countTokens(text);
    assert.deepEqual(seen, ['a', 'b', 'c', 'a']);
  });
});
