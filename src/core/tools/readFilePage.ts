import { readFilePage, type FilePage } from '../files/filePager';
import { openReadableFile, type ReadPolicy } from '../files/readablePath';
import { maskedNote } from '../files/secretShapes';

export interface ReadFilePageInput {
  path: string;
  line?: number;
  byteOffset?: number;
  maxBytes?: number;
}

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
