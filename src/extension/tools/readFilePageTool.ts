import * as vscode from 'vscode';
import { readFilePage, type FilePage } from '../../core/files/filePager';
import { resolveReadablePath } from '../../core/files/readablePath';
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
 * truncated prefix) or byte offset, once the read policy allows the path.
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

  /** Resolves the path against the workspace folders and the read policy (see resolveReadablePath). */
  private checkedPath(requested: unknown): Promise<string> {
    const settings = this.settings();
    return resolveReadablePath(requested, {
      folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
      allowOutsideWorkspace: settings.allowOutsideWorkspace,
      sensitivePatterns: settings.sensitivePatterns,
    });
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
