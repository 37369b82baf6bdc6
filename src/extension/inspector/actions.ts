/**
 * What the inspector and the tree do through VS Code: copy to the clipboard, open the whole copy
 * as a read-only editor document, save it as a file. Shared by the webview's buttons and the
 * tree's context menu so both behave the same.
 */
import * as vscode from 'vscode';
import { outputLabel } from '../../core/commandLabel';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import { decodeUtf8 } from '../../core/utf8';
import type { OutputInfo } from '../../core/types';
import type { InspectorActions } from './requestHandler';
import type { InspectorServices } from './services';
import { locateOutput } from './locate';

/** Read-only documents holding a whole copy: `tool-output-recall:/<outputId>/<name>.log`. */
export const COPY_SCHEME = 'tool-output-recall';

export class CopyDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: InspectorServices) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const outputId = uri.path.split('/')[1] ?? '';
    const { store } = await locateOutput(this.services, outputId);
    // Errors propagate: VS Code shows the engine's message (not found, evicted) instead of a document.
    return decodeUtf8(await store.readAll(outputId));
  }
}

export function copyUri(info: Pick<OutputInfo, 'outputId' | 'title' | 'tool'>): vscode.Uri {
  return vscode.Uri.from({ scheme: COPY_SCHEME, path: `/${info.outputId}/${fileNameFor(info)}` });
}

/** A file name from the command named briefly (program and key argument): readable, and safe on every platform. */
export function fileNameFor(info: Pick<OutputInfo, 'outputId' | 'title' | 'tool'>): string {
  const base = outputLabel(info.title ?? info.tool ?? '', info.tool === RUN_COMMAND_TOOL && !!info.title)
    .replace(/[^\p{L}\p{N}._ -]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-. ]+|[-. ]+$/g, '')
    .slice(0, 60);
  return `${base ? `${base}-` : ''}${info.outputId.slice(4, 12)}.log`;
}

export function inspectorActions(services: InspectorServices): InspectorActions {
  return {
    async copyText(text, what) {
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(`$(copy) ${vscode.l10n.t('{0} copied', what)}`, 3000);
    },

    async openInEditor(outputId, line) {
      const { store } = await locateOutput(services, outputId);
      const info = await store.info(outputId);
      const document = await vscode.workspace.openTextDocument(copyUri(info));
      const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
      await vscode.window.showTextDocument(document, {
        preview: false,
        viewColumn: vscode.ViewColumn.Beside,
        selection: line ? new vscode.Range(position, position) : undefined,
      });
      if (!info.complete) {
        const dropped = info.droppedBytes.toLocaleString('en-US');
        void vscode.window.showWarningMessage(
          info.gapOffset !== undefined
            ? vscode.l10n.t('This copy is incomplete: {dropped} bytes of the output were dropped at byte {gap}.', {
                dropped,
                gap: info.gapOffset.toLocaleString('en-US'),
              })
            : vscode.l10n.t('This copy is incomplete: {0} bytes of the output were dropped.', dropped),
        );
      }
    },

    async saveAs(outputId) {
      const { store } = await locateOutput(services, outputId);
      const info = await store.info(outputId);
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const target = await vscode.window.showSaveDialog({
        title: vscode.l10n.t('Save the copy of {0}', outputId),
        saveLabel: vscode.l10n.t('Save Copy'),
        defaultUri: folder ? vscode.Uri.joinPath(folder, fileNameFor(info)) : undefined,
        filters: { [vscode.l10n.t('Log files')]: ['log', 'txt'], [vscode.l10n.t('All files')]: ['*'] },
      });
      if (!target) return false;
      // The exact bytes of the copy (not re-encoded text): binary output survives the round trip.
      await vscode.workspace.fs.writeFile(target, await store.readAll(outputId));
      const saved = { bytes: info.totalBytes.toLocaleString('en-US'), file: vscode.workspace.asRelativePath(target) };
      const message = info.complete
        ? vscode.l10n.t('Saved {bytes} bytes to {file}.', saved)
        : vscode.l10n.t('Saved {bytes} bytes to {file}. It is incomplete: {dropped} bytes were dropped before it was saved.', {
            ...saved,
            dropped: info.droppedBytes.toLocaleString('en-US'),
          });
      const open = vscode.l10n.t('Open');
      void vscode.window.showInformationMessage(message, open).then((choice) => {
        if (choice === open) void vscode.window.showTextDocument(target);
      });
      return true;
    },
  };
}
