/**
 * The first notable line of a whole output, for the rows that list it (`extra.firstNotable`, read by
 * list_tool_outputs): the shown head and tail are scanned here (a preview's few KiB); for the part a
 * preview omitted, what its own scan found is taken, so no copy is scanned twice.
 */
import type { NotableLine } from '../types';
import { scanNotable } from './scanner';

export function firstNotableText(
  bytes: Uint8Array,
  /** The range a preview omitted, and the first notable line it found there (or in the bytes a capture dropped). */
  omitted?: { from: number; to: number; first?: NotableLine },
): string | undefined {
  const head = scanNotable(bytes, 'command', { to: omitted?.from ?? bytes.length }).lines[0];
  if (head) return head.text;
  if (!omitted) return undefined;
  if (omitted.first) return omitted.first.dropped ? `${omitted.first.text} (dropped at capture)` : omitted.first.text;
  return scanNotable(bytes, 'command', { from: omitted.to }).lines[0]?.text;
}
