import * as vscode from 'vscode';
import { splitIntoParts } from '../../core/tools/parts';

/** A result as VS Code takes it: text parts of at most MAX_PART_BYTES (see core/tools/parts.ts). */
export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult(splitIntoParts(text).map((part) => new vscode.LanguageModelTextPart(part)));
}

/** Bytes a token budget allows, at 2 bytes per token: tool output (code, logs, JSON) is token-dense. */
export function bytesForTokenBudget(tokenBudget: number | undefined, fallback: number, overhead = 0): number {
  if (tokenBudget === undefined || !Number.isFinite(tokenBudget) || tokenBudget <= 0) return fallback;
  return Math.max(1024, Math.min(fallback, Math.floor(tokenBudget * 2) - overhead));
}
