/**
 * A failing command's stderr beside its merged output. The cause of a failure is usually at the
 * start of stderr, and in the merged copy it is drowned by stdout; so when a command fails, part of
 * the preview budget goes to a head+tail excerpt of stderr alone. The two together stay within the
 * one budget the caller gave.
 */
import { MIN_PREVIEW_BUDGET, previewHeadTail } from '../preview';
import { countNewlines, decodeUtf8 } from '../utf8';

/** Most of the budget the excerpt may take: the merged preview keeps the larger part. */
const STDERR_SHARE = 1 / 3;
/** Room kept for the section's title line. */
const TITLE_RESERVE = 160;

export interface FailureBudget {
  /** For the merged preview. */
  merged: number;
  /** For the stderr section, its title line included. */
  stderr: number;
}

/**
 * How a preview budget of `previewBytes` is split between the merged output and a stderr of
 * `stderrBytes`: stderr gets what it needs (title included) up to a third of the budget; nothing
 * when there is no stderr, or when a stderr that must be cut gets too little room for an excerpt.
 */
export function splitFailureBudget(previewBytes: number, stderrBytes: number): FailureBudget {
  const none = { merged: previewBytes, stderr: 0 };
  if (stderrBytes <= 0) return none;
  const wanted = stderrBytes + TITLE_RESERVE;
  const stderr = Math.min(wanted, Math.floor(previewBytes * STDERR_SHARE));
  if (stderr < wanted && stderr - TITLE_RESERVE < MIN_PREVIEW_BUDGET) return none;
  if (previewBytes - stderr < MIN_PREVIEW_BUDGET) return none;
  return { merged: previewBytes - stderr, stderr };
}

export interface StderrFacts {
  /** Why the command counts as failed: "exit code 2", "killed by SIGKILL", "timed out". */
  status: string;
  /** Bytes stderr had in all (the captured ones may be fewer: see `bytes`). */
  totalBytes: number;
  /** The merged copy's id, when it is retained (stderr is in it, interleaved with stdout). */
  outputId?: string;
}

/**
 * The stderr section: a title line, then stderr whole or as head + marker + tail, in at most
 * `budgetBytes` UTF-8 bytes. `bytes` is the captured stderr (a capped capture keeps its own gap
 * marker inside). Returns '' when the budget is too small.
 */
export function stderrExcerpt(bytes: Uint8Array, budgetBytes: number, facts: StderrFacts, budgetLines?: number): string {
  const title = `--- stderr alone (${facts.status}; ${facts.totalBytes} bytes${bytes.length < facts.totalBytes ? `, ${bytes.length} captured` : ''}) ---\n`;
  const room = budgetBytes - Buffer.byteLength(title);
  if (bytes.length === 0 || room <= 0) return '';
  const fitsLines = budgetLines === undefined || countNewlines(bytes) < budgetLines;
  const whole = bytes.length <= room && fitsLines ? decodeUtf8(bytes) : undefined;
  // Invalid bytes decode to U+FFFD (3 bytes each): only text that still fits goes in whole.
  if (whole !== undefined && Buffer.byteLength(whole) <= room) return `${title}${whole}`;
  if (room < MIN_PREVIEW_BUDGET) return '';
  const where = facts.outputId
    ? `stderr is also in the merged copy "${facts.outputId}", interleaved with stdout: search it for a line of the omitted part (these offsets are stderr's, not the copy's).`
    : 'These bytes of stderr were not retained on their own.';
  const excerpt = previewHeadTail(bytes, { budgetBytes: room, kind: 'command', omittedNote: where, budgetLines });
  return `${title}${excerpt.text}`;
}
