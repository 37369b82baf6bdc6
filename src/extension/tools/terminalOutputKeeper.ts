/**
 * Keeps what VS Code's own terminal tool saves. `run_in_terminal` (the Local harness's shell tool)
 * gives the model 20,000 characters of a longer output and writes the rest of what the terminal kept
 * to `copilot-terminal-output-<uuid>.txt` (vscodeSpillFiles.ts), which it deletes when the chat
 * session ends. Each such file is retained in the current session as it appears: the output then
 * outlives the chat, shows in Retained Outputs and the inspector, and reads by outputId.
 *
 * Why not a PreToolUse hook that rewrites the command to pass through our capture (docs/decisions.md,
 * issue 31): it would change a command line the user confirms, take the terminal away from the
 * command (no TTY: no colours, progress or prompts) and need a wrapper for every shell.
 *
 * Only in a trusted workspace, like the read tools that read these files.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeError } from '../../core/errors';
import { readSpillForCopy } from '../../core/files/spillCopy';
import { TERMINAL_OUTPUT_NAME, type SpillRoots } from '../../core/files/vscodeSpillFiles';
import type { RecallSettings } from '../../core/settings';
import type { RetainMeta, RetainResult } from '../../core/types';

/** The tool that wrote the files, as the copy's producer. */
export const TERMINAL_TOOL = 'run_in_terminal';
/**
 * A file is read once its size has not changed for this long (VS Code writes it in one call): after
 * its last event, and its size the same as at the look before. Events alone do not say it: the
 * watcher may report a file once, as it is created, while a long write into it still goes on (a busy
 * machine, events coalesced), and a file read then would be kept cut short for good.
 */
const SETTLED_MS = 200;

export interface TerminalOutputKeeperDeps {
  roots: SpillRoots;
  settings: () => RecallSettings;
  isTrusted: () => boolean;
  retain(content: Uint8Array, meta: RetainMeta): Promise<RetainResult>;
  onRetained(): void;
  log: vscode.LogOutputChannel;
}

export function keepTerminalOutputs(deps: TerminalOutputKeeperDeps): vscode.Disposable {
  const kept = new Set<string>();
  const waiting = new Map<string, NodeJS.Timeout>();
  /** Each waiting file's size at the last look. */
  const sizes = new Map<string, number>();
  let disposed = false;
  const wait = (file: string): void => {
    clearTimeout(waiting.get(file));
    waiting.set(
      file,
      setTimeout(() => void keep(file), SETTLED_MS),
    );
  };
  const keep = async (file: string): Promise<void> => {
    waiting.delete(file);
    if (kept.has(file) || !deps.isTrusted()) return;
    const size = await fs.stat(file).then(
      (stat) => stat.size,
      () => undefined, // gone or unreadable: the read below says why
    );
    if (disposed || kept.has(file) || waiting.has(file)) return; // an event came meanwhile: its wait decides
    if (size !== undefined && sizes.get(file) !== size) {
      sizes.set(file, size);
      wait(file);
      return;
    }
    sizes.delete(file);
    kept.add(file);
    try {
      const settings = deps.settings();
      const copy = await readSpillForCopy(
        file,
        { folders: [], allowOutsideWorkspace: false, sensitivePatterns: settings.sensitivePatterns, spillRoots: deps.roots },
        settings.copyBytes,
        TERMINAL_TOOL,
      );
      const result = await deps.retain(copy.content, {
        ...copy.meta,
        tool: TERMINAL_TOOL,
        title: `${TERMINAL_TOOL}: ${path.basename(file)}`,
        extra: { savedFile: file, fileBytes: copy.fileBytes },
      });
      deps.log.info(`kept VS Code's terminal output ${file} (${copy.fileBytes} bytes) as ${result.outputId}`);
      deps.onRetained();
    } catch (error) {
      deps.log.warn(`could not keep VS Code's terminal output ${file}: ${describeError(error)}`);
    }
  };
  // Each event restarts the file's wait: it is read once it has stopped growing.
  const seen = (uri: vscode.Uri): void => {
    if (uri.scheme !== 'file' || !TERMINAL_OUTPUT_NAME.test(path.basename(uri.fsPath)) || kept.has(uri.fsPath)) return;
    wait(uri.fsPath);
  };
  const watchers: vscode.Disposable[] = [];
  for (const folder of deps.roots.terminalOutput ?? []) {
    // Watched from before VS Code first writes there: a folder that does not exist cannot be watched.
    void fs.mkdir(folder, { recursive: true, mode: 0o700 }).then(
      () => {
        const watcher = vscode.workspace.createFileSystemWatcher(
          new vscode.RelativePattern(vscode.Uri.file(folder), '*.txt'),
          false,
          false,
          true,
        );
        watcher.onDidCreate(seen);
        watcher.onDidChange(seen);
        if (disposed) watcher.dispose();
        else watchers.push(watcher);
      },
      (error: unknown) => deps.log.warn(`cannot watch ${folder} for VS Code's terminal outputs: ${describeError(error)}`),
    );
  }
  return {
    dispose() {
      disposed = true;
      for (const watcher of watchers) watcher.dispose();
      for (const timer of waiting.values()) clearTimeout(timer);
    },
  };
}
