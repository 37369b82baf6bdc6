/**
 * Where VS Code writes oversized results in this window, for read_file_page and search_tool_output
 * (the rule and the layout it follows: src/core/files/vscodeSpillFiles.ts). Computed once at
 * activation from what the extension host tells this extension about its own storage.
 */
import * as vscode from 'vscode';
import { vscodeSpillRoots, type SpillRoots } from '../../core/files/vscodeSpillFiles';

/** A `file:` URI's path on this machine; any other scheme (a browser's storage) has none. */
const onDisk = (uri: vscode.Uri | undefined): string | undefined => (uri?.scheme === 'file' ? uri.fsPath : undefined);

export function spillRootsOf(context: vscode.ExtensionContext): SpillRoots {
  return vscodeSpillRoots({
    globalStorage: onDisk(context.globalStorageUri),
    workspaceStorage: onDisk(context.storageUri),
    web: vscode.env.uiKind === vscode.UIKind.Web,
    local: vscode.env.remoteName === undefined || context.extension.extensionKind === vscode.ExtensionKind.UI,
  });
}

/** The roots as a log line. */
export function describeSpillRoots(roots: SpillRoots): string {
  const list = (folders: readonly string[] | undefined) => (folders?.length ? folders.join(', ') : 'none');
  return `VS Code's saved results read from: terminal output ${list(roots.terminalOutput)}; Copilot Chat ${list(roots.chatSessionResources)}`;
}
