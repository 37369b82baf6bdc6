import * as vscode from 'vscode';
import { RecallError } from '../../core/errors';

/**
 * Copilot Chat writes any single text part longer than 8 KiB to a file and shows the model only a
 * pointer (and drops non-image data parts), so results are plain text parts of at most this size.
 */
export const MAX_PART_BYTES = 8000;

/** Splits text into parts of at most MAX_PART_BYTES UTF-8 bytes, preferring line breaks. */
export function splitIntoParts(text: string): string[] {
  const parts: string[] = [];
  let rest = text;
  while (Buffer.byteLength(rest, 'utf8') > MAX_PART_BYTES) {
    // Find the longest prefix within the byte limit (chars ≤ bytes, so start from the limit).
    let end = Math.min(rest.length, MAX_PART_BYTES);
    while (Buffer.byteLength(rest.slice(0, end), 'utf8') > MAX_PART_BYTES) end = Math.floor(end * 0.9);
    const code = rest.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
    const lineBreak = rest.lastIndexOf('\n', end - 1);
    if (lineBreak > end / 2) end = lineBreak + 1;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult(splitIntoParts(text).map((part) => new vscode.LanguageModelTextPart(part)));
}

/**
 * Errors go back to the model as thrown errors whose message says what to do next. Engine errors
 * already read that way; anything else is wrapped with the tool's name.
 */
export function toolError(tool: string, error: unknown): Error {
  if (error instanceof RecallError) return new Error(`${tool} failed (${error.code}): ${error.message}`);
  if (error instanceof vscode.CancellationError) return error;
  return new Error(`${tool} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** Bytes a token budget allows, at 2 bytes per token: tool output (code, logs, JSON) is token-dense. */
export function bytesForTokenBudget(tokenBudget: number | undefined, fallback: number, overhead = 0): number {
  if (tokenBudget === undefined || !Number.isFinite(tokenBudget) || tokenBudget <= 0) return fallback;
  return Math.max(1024, Math.min(fallback, Math.floor(tokenBudget * 2) - overhead));
}
