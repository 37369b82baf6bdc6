import * as vscode from 'vscode';
import { splitIntoParts, toolErrorText } from '../../core/tools/parts';

/** A result as VS Code takes it: text parts of at most MAX_PART_BYTES (see core/tools/parts.ts). */
export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult(splitIntoParts(text).map((part) => new vscode.LanguageModelTextPart(part)));
}

/**
 * Errors go back to the model as thrown errors whose message says what to do next (the same text
 * the MCP server returns as an error result); a cancellation stays a cancellation.
 */
export function toolError(tool: string, error: unknown): Error {
  if (error instanceof vscode.CancellationError) return error;
  return new Error(toolErrorText(tool, error));
}

/** Bytes a token budget allows, at 2 bytes per token: tool output (code, logs, JSON) is token-dense. */
export function bytesForTokenBudget(tokenBudget: number | undefined, fallback: number, overhead = 0): number {
  if (tokenBudget === undefined || !Number.isFinite(tokenBudget) || tokenBudget <= 0) return fallback;
  return Math.max(1024, Math.min(fallback, Math.floor(tokenBudget * 2) - overhead));
}
