import { searchFile } from '../files/fileSearch';
import { openReadableFile, type ReadPolicy } from '../files/readablePath';
import { maskedNote } from '../files/secretShapes';
import { RecallError } from '../errors';
import { READ_FILE_PAGE_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../toolNames';

export interface SearchFileInput {
  path: string;
  pattern: string;
  regex?: boolean;
  caseSensitive?: boolean;
  maxMatches?: number;
}

/**
 * `search_tool_output {path, …}`'s result text: the same lines as for a retained output, over a
 * file the read policy allows (a workspace file, or a spill file VS Code's chat wrote for an
 * oversized tool result), with `read_file_page` calls to read around a match.
 * `policy` undefined: this host reads no files (the search is refused).
 */
export async function searchFileText(input: SearchFileInput, policy: ReadPolicy | undefined, signal?: AbortSignal): Promise<string> {
  if (!policy) {
    throw new RecallError('REFUSED', `${SEARCH_TOOL_OUTPUT_TOOL} searches no files here; search a retained output by its outputId.`);
  }
  const file = await openReadableFile(input.path, policy, SEARCH_TOOL_OUTPUT_TOOL);
  const { pattern, regex, caseSensitive, maxMatches } = input;
  const found = await searchFile(file, pattern, { regex, caseSensitive, maxMatches, signal }).finally(() => file.handle.close());
  const masked = found.masked ?? 0;
  const summary = {
    path: input.path,
    matches: found.matches.length,
    truncated: found.truncated,
    totalBytes: found.totalBytes,
    masked: masked || undefined,
  };
  const lines = found.matches.map((match) => JSON.stringify(match));
  const first = found.matches[0];
  const at = (byteOffset: number): string => `${READ_FILE_PAGE_TOOL} ${JSON.stringify({ path: input.path, byteOffset })}`;
  const clipped = found.matches.some((match) => match.window)
    ? ' A match with "window" shows only that byte range [from, to) of a long line: read from its window.from for more.'
    : '';
  const advice = first
    ? `Read around a match with ${at(first.lineOffset)} (a match's offset and lineOffset are byteOffsets for ${READ_FILE_PAGE_TOOL}; its line is a line number).${clipped}${found.truncated ? ' More matches exist: refine the pattern or raise maxMatches (up to 1000).' : ''}`
    : `No match in the whole file (${found.totalBytes} bytes).`;
  const note = masked > 0 ? [maskedNote(masked, 'in the text searched (the search ran over the masked text)')] : [];
  return [JSON.stringify(summary), ...lines, advice, ...note].join('\n');
}
