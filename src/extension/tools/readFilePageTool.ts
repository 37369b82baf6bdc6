import * as vscode from 'vscode';
import type { ReadPolicy } from '../../core/files/readablePath';
import { readFilePageText, type ReadFilePageInput } from '../../core/tools/readFilePage';
import type { RecallSettings } from '../config';
import { textResult, toolError } from './toolResult';
import { READ_FILE_PAGE_TOOL } from '../../core/toolNames';

export type { ReadFilePageInput };

/**
 * `read_file_page`: a bounded page of a file from any line (found in the whole file, not in a
 * truncated prefix) or byte offset, once the read policy allows the path.
 */
export class ReadFilePageTool implements vscode.LanguageModelTool<ReadFilePageInput> {
  static readonly toolName = READ_FILE_PAGE_TOOL;

  constructor(private readonly settings: () => RecallSettings) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ReadFilePageInput>): vscode.PreparedToolInvocation {
    const { line, byteOffset } = options.input;
    const invocationMessage =
      byteOffset !== undefined
        ? vscode.l10n.t('Reading {path} from byte {offset}', { path: options.input.path, offset: byteOffset })
        : vscode.l10n.t('Reading {path} from line {line}', { path: options.input.path, line: line ?? 1 });
    return { invocationMessage };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ReadFilePageInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      return textResult(await readFilePageText(options.input, readPolicy(this.settings())));
    } catch (error) {
      throw toolError(ReadFilePageTool.toolName, error);
    }
  }
}

/** Which files the tools read: the workspace folders on disk and the user's settings (also search_tool_output's `path`). */
export function readPolicy(settings: RecallSettings): ReadPolicy {
  return {
    folders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    allowOutsideWorkspace: settings.allowOutsideWorkspace,
    sensitivePatterns: settings.sensitivePatterns,
  };
}
