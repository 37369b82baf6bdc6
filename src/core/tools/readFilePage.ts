import * as l10n from '@vscode/l10n';
import { readFilePage, validateReadFilePageInput, type FilePage } from '../files/filePager';
import { openReadableFile, type ReadPolicy } from '../files/readablePath';
import { maskedNote } from '../files/secretShapes';
import { READ_FILE_PAGE_TOOL } from '../toolNames';
import { readPolicyOf, type ReadingToolSpec } from './toolSpec';

export interface ReadFilePageInput {
  path: string;
  line?: number;
  byteOffset?: number;
  maxBytes?: number;
}

/**
 * `read_file_page`: a bounded page of a file from any line (found in the whole file, not in a
 * truncated prefix) or byte offset, once the read policy allows the path.
 */
export const readFilePageSpec: ReadingToolSpec<ReadFilePageInput, typeof READ_FILE_PAGE_TOOL> = {
  name: READ_FILE_PAGE_TOOL,
  effect: 'reads',
  validate: (input) => validateReadFilePageInput(input.path, input),
  invocation: ({ path, line, byteOffset }) =>
    byteOffset !== undefined
      ? l10n.t('Reading {path} from byte {offset}', { path, offset: byteOffset })
      : l10n.t('Reading {path} from line {line}', { path, line: line ?? 1 }),
  run: (input, context) => readFilePageText(input, readPolicyOf(context)),
};

/**
 * `read_file_page`'s result text: once the read policy allows the path, a JSON header (line and
 * byte range, totals, the next offset), the range in words with the exact next call, a line saying
 * how many secret-shaped values were masked (if any), then the page.
 */
export async function readFilePageText(input: ReadFilePageInput, policy: ReadPolicy): Promise<string> {
  const { line, byteOffset, maxBytes } = input;
  const file = await openReadableFile(input.path, policy);
  try {
    return render(await readFilePage(file, { line, byteOffset, maxBytes, displayPath: input.path }));
  } finally {
    await file.handle.close();
  }
}

function render(page: FilePage): string {
  const lines = page.endLine >= page.startLine ? `lines ${page.startLine}-${page.endLine}` : `line ${page.startLine}`;
  const header = {
    startLine: page.startLine,
    endLine: page.endLine,
    startByte: page.startByte,
    endByte: page.endByte,
    totalBytes: page.totalBytes,
    totalLines: page.totalLines,
    hasMore: page.hasMore,
    endsMidLine: page.endsMidLine,
    nextByteOffset: page.nextByteOffset,
    masked: page.masked || undefined,
  };
  const masked = page.masked > 0 ? `${maskedNote(page.masked, 'in this page')}\n` : '';
  return `${JSON.stringify(header)}\n${lines}, bytes [${page.startByte}, ${page.endByte}) of ${page.totalBytes}. Next: ${page.continuation}\n${masked}---\n${page.text}`;
}

declare module './registry' {
  interface ToolSpecs {
    read_file_page: typeof readFilePageSpec;
  }
}
