/**
 * The global budget guard, run before every model request (OpenClaw's second layer): when the whole
 * request is estimated above 75% of the context window, the oldest tool results are replaced by
 * placeholders, oldest first, until it fits. The newest results go last, so they stay as long as
 * anything older can give way.
 *
 * Nothing is silently lost: a result is retained before it is replaced (a part that already has a
 * copy keeps its outputId), and its placeholder gives the size and the exact read_tool_output call.
 * When retention fails, that result is passed over while others can still make room; only if the
 * request still does not fit is it replaced too, with a placeholder saying it could not be saved.
 * Non-text parts (images) stay in place: the store keeps text, and dropping them would lose them.
 */
import { createHash } from 'node:crypto';
import { RecallError, describeError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';
import { requireContextWindow } from './budget';
import { countResultParts, estimateRequest, type TokenEstimator } from './estimate';
import type { Message, ResultPart, RetainedRef, RetainFn, ToolResultPart } from './types';
import { READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';

/** Share of the context window a request may fill (OpenClaw's guard). */
export const GUARD_THRESHOLD = 0.75;
/**
 * Results with less text than this are never replaced: a placeholder is ~300 bytes, so replacing
 * them frees little and costs a store write.
 */
export const MIN_REPLACEABLE_BYTES = 1024;

export interface GuardOptions {
  contextWindowTokens: number;
  estimator: TokenEstimator;
  /** The session store's `retain`. */
  retain: RetainFn;
  /** Share of the window the request may fill, in (0, 1]; default 0.75. */
  threshold?: number;
  /** Cost of a non-text result part (see OTHER_PART_TOKENS). */
  otherPartTokens?: number;
  /**
   * Copies made by earlier runs, keyed by `copyKey`. Hosts that rebuild each request from the
   * original history (the guard's replacements are not kept) pass one map per session, so the
   * same old result is not retained again on every request.
   */
  copies?: Map<string, RetainedRef>;
}

export interface GuardReplacement {
  callId: string;
  /** The copies the placeholders name, in part order. */
  outputIds: string[];
  /** Why parts could not be saved (empty when every part is readable back). */
  failures: string[];
}

export interface GuardResult {
  /** The request to send: a new array; unchanged messages are the input objects, changed ones copies. */
  messages: Message[];
  limitTokens: number;
  tokensBefore: number;
  tokensAfter: number;
  /** False when even replacing every tool result could not bring the request under the limit. */
  fits: boolean;
  replaced: GuardReplacement[];
}

interface Candidate {
  message: number;
  part: number;
  result: ToolResultPart;
}

/** A text part's copy, or why it could not be made. */
type Saved = { ref: RetainedRef } | { failure: string; bytes: number };

export async function guardRequest(messages: readonly Message[], options: GuardOptions): Promise<GuardResult> {
  requireContextWindow(options.contextWindowTokens);
  const threshold = options.threshold ?? GUARD_THRESHOLD;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The guard threshold must be a share of the context window in (0, 1], e.g. 0.75; got ${String(threshold)}.`,
      { threshold },
    );
  }
  const limitTokens = Math.floor(options.contextWindowTokens * threshold);
  const estimate = await estimateRequest(messages, options.estimator, options);
  const out = messages.slice();
  let total = estimate.total;
  const replaced: GuardReplacement[] = [];

  const replace = async (c: Candidate, saved: Saved[]): Promise<void> => {
    const result = placeholderResult(c.result, saved);
    const tokens = await countResultParts(result.parts, options.estimator, options);
    total += tokens - estimate.perPart[c.message][c.part];
    const message = out[c.message] === messages[c.message] ? { ...out[c.message], parts: out[c.message].parts.slice() } : out[c.message];
    message.parts[c.part] = result;
    out[c.message] = message;
    replaced.push({
      callId: c.result.callId,
      outputIds: saved.flatMap((s) => ('ref' in s ? [s.ref.outputId] : [])),
      failures: saved.flatMap((s) => ('failure' in s ? [s.failure] : [])),
    });
  };

  const passedOver: Array<{ candidate: Candidate; saved: Saved[] }> = [];
  for (const candidate of candidates(messages)) {
    if (total <= limitTokens) break;
    const saved = await saveTextParts(candidate.result, options.retain, options.copies);
    if (saved.some((s) => 'failure' in s)) passedOver.push({ candidate, saved });
    else await replace(candidate, saved);
  }
  // Only when readable results were not enough: the unsaved ones, oldest first, said as lost.
  for (const { candidate, saved } of passedOver) {
    if (total <= limitTokens) break;
    await replace(candidate, saved);
  }

  return { messages: out, limitTokens, tokensBefore: estimate.total, tokensAfter: total, fits: total <= limitTokens, replaced };
}

/** Tool results that may be replaced, oldest first. */
function candidates(messages: readonly Message[]): Candidate[] {
  const found: Candidate[] = [];
  messages.forEach((m, message) =>
    m.parts.forEach((p, part) => {
      if (p.kind !== 'toolResult' || p.replaced) return;
      const bytes = p.parts.reduce((sum, rp) => sum + (rp.kind === 'text' ? Buffer.byteLength(rp.text, 'utf8') : 0), 0);
      if (bytes >= MIN_REPLACEABLE_BYTES) found.push({ message, part, result: p });
    }),
  );
  return found;
}

/** One entry per text part, in order; parts that already have a copy keep it. */
async function saveTextParts(result: ToolResultPart, retain: RetainFn, copies?: Map<string, RetainedRef>): Promise<Saved[]> {
  const saved: Saved[] = [];
  for (const part of result.parts) {
    if (part.kind !== 'text') continue;
    const key = copies && copyKey(result.callId, part.text);
    const known = part.retained ?? (key ? copies?.get(key) : undefined);
    if (known) {
      saved.push({ ref: known });
      continue;
    }
    try {
      const copy = await retain(part.text, { tool: result.name, extra: { callId: result.callId, source: 'history-guard' } });
      const ref = { outputId: copy.outputId, totalBytes: copy.totalBytes, complete: copy.complete };
      if (key) copies?.set(key, ref);
      saved.push({ ref });
    } catch (error) {
      saved.push({ failure: describeError(error), bytes: Buffer.byteLength(part.text, 'utf8') });
    }
  }
  return saved;
}

/** Identifies one text part's content across requests: same call, same text, same copy. */
export function copyKey(callId: string, text: string): string {
  return `${callId}:${createHash('sha1').update(text).digest('base64')}`;
}

/** The result with each text part replaced by its placeholder; other parts are kept as they are. */
function placeholderResult(result: ToolResultPart, saved: readonly Saved[]): ToolResultPart {
  const textCount = saved.length;
  let k = 0;
  const parts: ResultPart[] = result.parts.map((part) => {
    if (part.kind !== 'text') return part;
    const s = saved[k++];
    const which = textCount > 1 ? ` (text part ${k} of ${textCount})` : '';
    const text = placeholderText(result.callId + which, s);
    return 'ref' in s ? { kind: 'text', text, retained: s.ref } : { kind: 'text', text };
  });
  return { ...result, parts, replaced: true };
}

function placeholderText(what: string, saved: Saved): string {
  const head = `[Tool result ${what} was removed from the conversation to fit the context window.`;
  if ('failure' in saved) {
    return `${head} Its ${saved.bytes} bytes could NOT be saved (${saved.failure}), so they cannot be read back. Rerun the tool only if that is safe; do not conclude that something is absent from the output.]`;
  }
  const call = JSON.stringify({ outputId: saved.ref.outputId, offset: 0 });
  const incomplete = saved.ref.complete ? '' : ' The copy is itself incomplete (bytes were dropped before it was saved).';
  return `${head} Its ${saved.ref.totalBytes} bytes are retained: call ${READ_TOOL_OUTPUT_TOOL} ${call} to read them (pages of up to ${DEFAULT_LIMITS.pageBytes} bytes; follow nextOffset), or ${SEARCH_TOOL_OUTPUT_TOOL} with the same outputId to find a field.${incomplete}]`;
}
