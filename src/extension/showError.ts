/**
 * Shows a person why a command failed, in their words (personMessages.ts), and logs the engine's
 * own text (written for a model) under the command's name: as an error only when the extension
 * failed, not when an ID was unknown or an offset out of range.
 */
import * as vscode from 'vscode';
import { isRecallError } from '../core/errors';
import { logText, personMessage, type ErrorContext } from './personMessages';

export function showError(log: vscode.LogOutputChannel, command: string, error: unknown, context: ErrorContext = {}): void {
  const { text, severity } = personMessage(error, context);
  const line = `${command}: ${logText(error)}`;
  if (severity === 'error') log.error(line);
  else log.info(line);
  // A message that is not the engine's (a file system error…) says whose it is.
  const shown = isRecallError(error) ? text : vscode.l10n.t('Tool Output Recall: {0}', text);
  if (severity === 'error') void vscode.window.showErrorMessage(shown);
  else if (severity === 'warning') void vscode.window.showWarningMessage(shown);
  else void vscode.window.showInformationMessage(shown);
}
