/**
 * An output as a listing shows it, from what its session's index holds (no copy is read), and the
 * newest-first order every listing and search across outputs follows.
 */
import type { OutputKey } from '../search/protocol';
import type { ListedOutput, OutputInfo } from '../types';

/** A notable line's text in a row: enough to recognise it, short enough for a page of rows. */
const NOTABLE_CHARS = 160;

export function listedOutput(info: OutputInfo, sessionId: string): ListedOutput {
  const extra = info.extra ?? {};
  const exitCode = extra.exitCode;
  const notable = firstNotable(info);
  return {
    outputId: info.outputId,
    sessionId,
    ...(info.tool === undefined ? {} : { tool: info.tool }),
    ...(info.title === undefined ? {} : { title: info.title }),
    createdAt: info.createdAt,
    ...(typeof exitCode === 'number' || exitCode === null ? { exitCode } : {}),
    ...(typeof extra.signal === 'string' ? { signal: extra.signal } : {}),
    totalBytes: info.totalBytes,
    droppedBytes: info.droppedBytes,
    complete: info.complete,
    evicted: info.evicted,
    ...(notable ? { notable } : {}),
  };
}

/**
 * The first notable line the output's facts hold: the one its maker recorded for the whole output
 * (`extra.firstNotable`), else the first the capture saw in the bytes it dropped.
 */
function firstNotable(info: OutputInfo): string | undefined {
  const recorded = info.extra?.firstNotable;
  if (typeof recorded === 'string' && recorded) return clip(recorded);
  const dropped = info.notable?.lines[0];
  return dropped ? clip(`${dropped.text} (output line ${dropped.line}, dropped at capture)`) : undefined;
}

const clip = (text: string): string => (text.length > NOTABLE_CHARS ? `${text.slice(0, NOTABLE_CHARS - 1)}…` : text);

export const keyOf = (output: ListedOutput): OutputKey => ({
  createdAt: output.createdAt,
  sessionId: output.sessionId,
  outputId: output.outputId,
});

/** Newest first; ties (one millisecond) by session and id, so the order, and so a cursor, is total. */
export function compareNewestFirst(a: OutputKey, b: OutputKey): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? 1 : -1;
  return a.outputId === b.outputId ? 0 : a.outputId < b.outputId ? 1 : -1;
}

/** Whether `output` comes after `key` in that order (a cursor's page starts after its key). */
export const isAfter = (output: OutputKey, key: OutputKey | undefined): boolean => key === undefined || compareNewestFirst(output, key) > 0;
