/**
 * What a search can say about the part of an output its copy does not hold: the capture's digest
 * of the dropped bytes, and the notable lines in it that match the pattern. A "no match" on an
 * incomplete copy then says more than "the copy is incomplete".
 */
import { compileSearch, searchBytes } from '../search';
import type { DroppedMatches, OutputInfo, SearchOptions } from '../types';

/** Undefined when the copy is complete or its capture kept no digest of what it dropped. */
export function droppedMatches(info: OutputInfo, pattern: string, options: SearchOptions = {}): DroppedMatches | undefined {
  const digest = info.notable;
  if (info.complete || !digest) return undefined;
  // The kept lines, one per line of a small text, searched with the same engine as the copy.
  const texts = digest.lines.map((line) => line.text.replace(/[\r\n]/g, ' '));
  const found = searchBytes(Buffer.from(texts.join('\n'), 'utf8'), compileSearch(info.outputId, pattern, { ...options, maxMatches: 1000 }));
  const hit = new Set(found.matches.map((match) => match.line - 1));
  return {
    bytes: info.droppedBytes,
    counts: digest.counts,
    matches: digest.lines.filter((_, index) => hit.has(index)).map((line) => ({ ...line, dropped: true })),
  };
}

/**
 * The sentence a "no match" on an incomplete copy gets from `dropped`: the matching notable lines
 * the capture saw before it dropped them, or what else it saw there.
 */
export function describeDropped(dropped: DroppedMatches): string {
  const { error, summary, warning } = dropped.counts;
  const seen = error + summary + warning;
  const counts = `${seen} notable line${seen === 1 ? '' : 's'} (${error} errors, ${summary} summary lines, ${warning} warnings)`;
  if (dropped.matches.length > 0) {
    const lines = dropped.matches
      .slice(0, 5)
      .map((line) => `output line ${line.line}: ${line.text}`)
      .join(' | ');
    return `Not in the copy, but the capture saw ${dropped.matches.length} matching notable line${dropped.matches.length === 1 ? '' : 's'} in the ${dropped.bytes} bytes it dropped (NOT in the copy, cannot be read back): ${lines}.`;
  }
  return seen > 0
    ? `Not in the copy; in the ${dropped.bytes} bytes it dropped the capture saw ${counts}, none matching. The text may still have been on an ordinary line there: say so rather than claiming it is absent.`
    : `Not in the copy; the capture saw no notable line (error, warning, summary) in the ${dropped.bytes} bytes it dropped. The text may still have been on an ordinary line there: say so rather than claiming it is absent.`;
}
