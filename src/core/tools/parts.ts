import { RecallError } from '../errors';

/**
 * Largest text part of a tool result. Copilot Chat writes any single text part longer than 8 KiB to
 * a file and shows the model only a pointer; MCP clients (Claude Code, Codex) cap or spill large
 * content blocks too. So every result, in VS Code and over MCP, is plain text parts of at most this.
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

/**
 * The text a model gets for a failed tool call. Engine errors already say what to do next and carry
 * their public code; anything else is wrapped with the tool's name.
 */
export function toolErrorText(tool: string, error: unknown): string {
  if (error instanceof RecallError) return `${tool} failed (${error.code}): ${error.message}`;
  return `${tool} failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** What a program's `tools.call` of a tool that does not exist rejects with. */
export function unknownToolText(name: string, available: readonly string[]): string {
  const listed = available.slice(0, 60).join(', ') + (available.length > 60 ? `, … (${available.length - 60} more)` : '');
  return `There is no tool named ${JSON.stringify(name)}. Available tools: ${listed || 'none'}.`;
}
