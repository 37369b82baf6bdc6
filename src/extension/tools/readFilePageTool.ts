import * as vscode from 'vscode';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { RecallError } from '../../core/errors';
import { readFilePage, type FilePage } from '../../core/files/filePager';
import { isSensitiveFile } from '../../core/files/sensitivePaths';
import type { RecallSettings } from '../config';
import { textResult, toolError } from './toolResult';
import { READ_FILE_PAGE_TOOL } from '../../core/toolNames';

export interface ReadFilePageInput {
  path: string;
  line?: number;
  byteOffset?: number;
  maxBytes?: number;
}

/**
 * `read_file_page`: a bounded page of a file from any line (found in the whole file, not in a
 * truncated prefix) or byte offset. Paths are checked after resolving symlinks, so a link inside
 * the workspace cannot reach a file outside it or a credential.
 */
export class ReadFilePageTool implements vscode.LanguageModelTool<ReadFilePageInput> {
  static readonly toolName = READ_FILE_PAGE_TOOL;

  constructor(private readonly settings: () => RecallSettings) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadFilePageInput>): vscode.PreparedToolInvocation {
    const { line, byteOffset } = options.input;
    const where = byteOffset !== undefined ? `byte ${byteOffset}` : `line ${line ?? 1}`;
    return { invocationMessage: `Reading ${options.input.path} from ${where}` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadFilePageInput>): Promise<vscode.LanguageModelToolResult> {
    const { line, byteOffset, maxBytes } = options.input;
    try {
      const file = await this.checkedPath(options.input.path);
      const page = await readFilePage(file, { line, byteOffset, maxBytes, displayPath: options.input.path });
      return textResult(render(page));
    } catch (error) {
      throw toolError(ReadFilePageTool.toolName, error);
    }
  }

  /** Resolves the path (symlinks too) and refuses sensitive files and, unless allowed, the outside. */
  async checkedPath(requested: unknown): Promise<string> {
    if (typeof requested !== 'string' || requested.trim() === '') {
      throw new RecallError('INVALID_ARGUMENT', 'path must be a file path, absolute or relative to the first workspace folder.');
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const expanded = requested.startsWith('~/') ? path.join(os.homedir(), requested.slice(2)) : requested;
    const absolute = path.resolve(folders[0] ?? os.homedir(), expanded);
    const real = await fs.realpath(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT')
        throw new RecallError(
          'NOT_FOUND',
          `No file at ${absolute}. Check the path (relative paths start at ${folders[0] ?? 'the home folder'}).`,
        );
      throw error;
    });
    const settings = this.settings();
    if (!settings.allowOutsideWorkspace) {
      const realFolders = await Promise.all(folders.map((folder) => fs.realpath(folder).catch(() => folder)));
      const inside = realFolders.some(
        (folder) => real === folder || real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep),
      );
      if (!inside) {
        throw new RecallError(
          'INVALID_ARGUMENT',
          `${requested} resolves to ${real}, outside the workspace folders; ${READ_FILE_PAGE_TOOL} does not read there (the user can allow it with the setting toolOutputRecall.readFilePage.allowOutsideWorkspace).`,
        );
      }
    }
    for (const candidate of new Set([absolute, real])) {
      const verdict = await isSensitiveFile(candidate, settings.sensitivePatterns);
      if (verdict.sensitive) {
        throw new RecallError(
          'INVALID_ARGUMENT',
          `${requested} is a sensitive file (${verdict.reason ?? `matches "${verdict.pattern}"`}); ${READ_FILE_PAGE_TOOL} does not read credentials. Ask the user for the specific non-secret value you need.`,
        );
      }
    }
    return real;
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
  };
  return `${JSON.stringify(header)}\n${lines}, bytes [${page.startByte}, ${page.endByte}) of ${page.totalBytes}. Next: ${page.continuation}\n---\n${page.text}`;
}
