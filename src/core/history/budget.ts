/**
 * How much of one tool result may enter history, and how a multi-part result shares that budget.
 *
 * The cap follows OpenClaw: 30% of the context window, converted to characters at 2 chars per token
 * (tool output is mostly code, paths and JSON, which tokenise densely), never above 400,000 chars.
 * Within that cap an ordinary result is still held to the history budget (32 KiB by default).
 *
 * Chars vs bytes: the cap is in JavaScript characters (UTF-16 code units), while previews are cut in
 * UTF-8 bytes. We use the char count as the byte budget unchanged: every UTF-16 code unit takes at
 * least one UTF-8 byte, so a preview of N bytes never exceeds N chars. The cap is therefore always
 * honoured, and only non-ASCII text gets a little less than the cap would allow.
 */
import { RecallError } from '../errors';
import { DEFAULT_LIMITS } from '../limits';

/** Characters per token for tool results (code-like, token-dense). */
export const TOOL_RESULT_CHARS_PER_TOKEN = 2;
/** Characters per token for prose: user and assistant text, tool-call arguments. */
export const TEXT_CHARS_PER_TOKEN = 4;
/** OpenClaw's hard ceiling on one result, whatever the context window. */
export const MAX_RESULT_CHARS = 400_000;
/**
 * Smallest budget a truncated text part gets: the omission marker alone is ~450 bytes, and a part
 * needs some head and tail beside it to be worth keeping. Also the floor for tiny context windows.
 */
export const PART_FLOOR_BYTES = 1024;

/** Throws INVALID_ARGUMENT unless the context window is a positive, finite token count. */
export function requireContextWindow(contextWindowTokens: number): void {
  if (typeof contextWindowTokens !== 'number' || !Number.isFinite(contextWindowTokens) || contextWindowTokens <= 0) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The context window must be a positive, finite number of tokens (e.g. 128000); got ${String(contextWindowTokens)}.`,
      { contextWindowTokens },
    );
  }
}

/** OpenClaw's per-result cap in characters: min(30% × window × 2 chars/token, 400,000). */
export function toolResultCapChars(contextWindowTokens: number): number {
  requireContextWindow(contextWindowTokens);
  // ×3/10 rather than ×0.3: 0.3 is inexact in binary, and round windows should give round caps.
  const share = Math.floor((contextWindowTokens * TOOL_RESULT_CHARS_PER_TOKEN * 3) / 10);
  return Math.min(share, MAX_RESULT_CHARS);
}

/**
 * The UTF-8 byte budget for all the text of one result entering history: the cap (chars taken as
 * bytes, see above) or the history budget, whichever is smaller, but never below PART_FLOOR_BYTES
 * (a window so small that 30% of it cannot hold a marker is clamped rather than refused).
 */
export function toolResultBudgetBytes(contextWindowTokens: number, historyBytes: number = DEFAULT_LIMITS.historyBytes): number {
  if (!Number.isInteger(historyBytes) || historyBytes < PART_FLOOR_BYTES) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `The history budget must be an integer of at least ${PART_FLOOR_BYTES} bytes (default ${DEFAULT_LIMITS.historyBytes}); got ${String(historyBytes)}.`,
      { historyBytes },
    );
  }
  return Math.max(PART_FLOOR_BYTES, Math.min(toolResultCapChars(contextWindowTokens), historyBytes));
}

/**
 * Per-part byte budgets for the text parts of one result, in proportion to their sizes, so no single
 * part takes the whole budget. When everything fits, each part keeps its size (nothing is cut).
 *
 * Otherwise parts no larger than PART_FLOOR_BYTES stay whole (cutting them frees almost nothing and
 * their marker would outweigh them), and the remaining budget is split among the larger parts by
 * size. A part whose share falls below the floor is raised to it and the rest re-split, so the
 * total exceeds the budget only when there are more large parts than floors that fit in it; the
 * global guard is the backstop for that case.
 */
export function splitTextBudget(sizes: readonly number[], budgetBytes: number): number[] {
  if (!Number.isInteger(budgetBytes) || budgetBytes <= 0) {
    throw new RecallError('INVALID_ARGUMENT', `The budget to split must be a positive integer of bytes; got ${String(budgetBytes)}.`, {
      budgetBytes,
    });
  }
  for (const size of sizes) {
    if (!Number.isInteger(size) || size < 0) {
      throw new RecallError('INVALID_ARGUMENT', `Part sizes must be non-negative integers of bytes; got ${String(size)}.`, { size });
    }
  }
  const shares = sizes.slice();
  if (sizes.reduce((a, b) => a + b, 0) <= budgetBytes) return shares;

  let open = sizes.flatMap((size, i) => (size > PART_FLOOR_BYTES ? [i] : []));
  let remaining = budgetBytes - sizes.reduce((sum, size) => (size > PART_FLOOR_BYTES ? sum : sum + size), 0);
  while (open.length > 0) {
    const openTotal = open.reduce((sum, i) => sum + sizes[i], 0);
    const proportional = (i: number): number => Math.floor((Math.max(remaining, 0) * sizes[i]) / openTotal);
    const raised = open.filter((i) => proportional(i) < PART_FLOOR_BYTES);
    if (raised.length === 0) {
      for (const i of open) shares[i] = Math.min(proportional(i), sizes[i]);
      break;
    }
    for (const i of raised) shares[i] = PART_FLOOR_BYTES;
    remaining -= raised.length * PART_FLOOR_BYTES;
    open = open.filter((i) => !raised.includes(i));
  }
  return shares;
}
