/**
 * Token estimation for the global guard.
 *
 * Which estimator is used when:
 * - `modelEstimator(counter)` when the host exposes the model's own async token counter (the only
 *   exact answer); each distinct text is counted once (cached by hash), calls run a few at a time,
 *   and any text whose count fails or is nonsense falls back to the character estimate.
 * - `charEstimator()` when there is no counter (or as that fallback): tool results at 2 chars per
 *   token, everything else at 4. It errs high for prose and roughly right for code and JSON, which
 *   is the safe side for a guard that must keep the request under the window.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TEXT_CHARS_PER_TOKEN, TOOL_RESULT_CHARS_PER_TOKEN } from './budget';
import type { Message, MessagePart, ResultPart } from './types';

/** What a text is, for estimators that price kinds differently; exact counters ignore it. */
export type TextKind = 'toolResult' | 'other';

export interface TokenEstimator {
  countTokens(text: string, kind?: TextKind): Promise<number>;
}

/** The model's own counter, as a host provides it. */
export type ModelTokenCounter = (text: string) => Promise<number>;

export function estimateChars(text: string, kind: TextKind = 'other'): number {
  return Math.ceil(text.length / (kind === 'toolResult' ? TOOL_RESULT_CHARS_PER_TOKEN : TEXT_CHARS_PER_TOKEN));
}

export function charEstimator(): TokenEstimator {
  return { countTokens: async (text, kind) => estimateChars(text, kind) };
}

export interface ModelEstimatorOptions {
  /** Counter calls in flight at once (default 4): hosts often count over IPC or HTTP. */
  concurrency?: number;
  /** Distinct texts remembered (default 2048); the oldest are forgotten first. */
  cacheEntries?: number;
}

/** Uses `counter` when given, else the character estimate (see the top of this file). */
export function modelEstimator(counter: ModelTokenCounter | undefined, options: ModelEstimatorOptions = {}): TokenEstimator {
  if (!counter) return charEstimator();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const cacheEntries = Math.max(1, Math.floor(options.cacheEntries ?? 2048));
  // Promises, not numbers, so concurrent requests for the same text share one counter call.
  const cache = new Map<string, Promise<number>>();
  let active = 0;
  const waiting: Array<() => void> = [];
  // A finished call hands its slot straight to the next waiter, so a newcomer cannot slip in
  // between and push the count over the limit.
  const acquire = async (): Promise<void> => {
    if (active < concurrency) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const limited = async (text: string): Promise<number> => {
    await acquire();
    try {
      return await counter(text);
    } finally {
      release();
    }
  };

  return {
    async countTokens(text, kind) {
      // Hashing keeps megabyte-sized results out of the cache's keys.
      const key = createHash('sha1').update(text).digest('base64');
      let pending = cache.get(key);
      if (!pending) {
        pending = limited(text).then((n) => {
          if (!Number.isFinite(n) || n < 0) throw new Error(`token counter returned ${n}`);
          return Math.ceil(n);
        });
        if (cache.size >= cacheEntries) cache.delete(cache.keys().next().value as string);
        cache.set(key, pending);
        // A failed count is not remembered: the next request asks the counter again.
        const mine = pending;
        mine.catch(() => {
          if (cache.get(key) === mine) cache.delete(key);
        });
      }
      try {
        return await pending;
      } catch {
        return estimateChars(text, kind);
      }
    },
  };
}

/** Framing each message costs beyond its text (role, separators): a small, fixed allowance. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/**
 * Default cost of a non-text result part (an image…): providers price images by pixels, not bytes,
 * and ~1,000 tokens is typical; a host that knows better passes `otherPartTokens`.
 */
export const OTHER_PART_TOKENS = 1000;

export interface EstimateOptions {
  otherPartTokens?: number;
}

export interface RequestEstimate {
  total: number;
  /** Tokens of each message part, `[message][part]`, so a caller can update `total` part by part. */
  perPart: number[][];
}

export async function countResultParts(
  parts: readonly ResultPart[],
  estimator: TokenEstimator,
  options: EstimateOptions = {},
): Promise<number> {
  const counts = await Promise.all(
    parts.map((part) =>
      part.kind === 'text' ? estimator.countTokens(part.text, 'toolResult') : Promise.resolve(options.otherPartTokens ?? OTHER_PART_TOKENS),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}

export function countPart(part: MessagePart, estimator: TokenEstimator, options: EstimateOptions = {}): Promise<number> {
  switch (part.kind) {
    case 'text':
      return estimator.countTokens(part.text, 'other');
    case 'toolCall':
      return estimator.countTokens(`${part.name} ${JSON.stringify(part.input) ?? ''}`, 'other');
    case 'toolResult':
      return countResultParts(part.parts, estimator, options);
  }
}

/** The whole request's tokens; all parts are counted at once (the estimator bounds concurrency). */
export async function estimateRequest(
  messages: readonly Message[],
  estimator: TokenEstimator,
  options: EstimateOptions = {},
): Promise<RequestEstimate> {
  const perPart = await Promise.all(messages.map((m) => Promise.all(m.parts.map((p) => countPart(p, estimator, options)))));
  const total = perPart.reduce((sum, counts) => sum + MESSAGE_OVERHEAD_TOKENS + counts.reduce((a, b) => a + b, 0), 0);
  return { total, perPart };
}

/** For benchmarks: one estimate of a conversation, its time and the characters it covered. */
export async function measureEstimate(
  messages: readonly Message[],
  estimator: TokenEstimator,
): Promise<{ tokens: number; elapsedMs: number; textChars: number }> {
  const textChars = messages.reduce((sum, m) => sum + m.parts.reduce((s, p) => s + partChars(p), 0), 0);
  const start = performance.now();
  const { total } = await estimateRequest(messages, estimator);
  return { tokens: total, elapsedMs: performance.now() - start, textChars };
}

function partChars(part: MessagePart): number {
  switch (part.kind) {
    case 'text':
      return part.text.length;
    case 'toolCall':
      return part.name.length + (JSON.stringify(part.input)?.length ?? 0);
    case 'toolResult':
      return part.parts.reduce((s, p) => s + (p.kind === 'text' ? p.text.length : 0), 0);
  }
}
