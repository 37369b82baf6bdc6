/**
 * Adds (or updates) one server in an agent's JSON configuration (`{ "mcpServers": { … } }`:
 * Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`), keeping every other key and server as it
 * is, in its place. A file that is not such a JSON object is reported, never rewritten.
 */
import { isDeepStrictEqual } from 'node:util';
import * as l10n from '@vscode/l10n';
import type { ConfigMerge } from './merge';

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON object `existing` holds, or why the file is left alone (`shape`: the object expected, for the message). */
export function parseJsonObject(existing: string, shape: string): { root: Record<string, unknown> } | { problem: string } {
  let root: unknown;
  try {
    root = JSON.parse(existing.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problem: l10n.t('it is not valid JSON ({0})', error instanceof Error ? error.message : String(error)) };
  }
  return isObject(root) ? { root } : { problem: l10n.t('it is JSON, but not an object ({0})', shape) };
}

/** `value` as JSON in `existing`'s indentation, ending in a newline if it did. */
export function formatLike(existing: string, value: unknown): string {
  const indent = /^[ \t]+(?=")/m.exec(existing)?.[0] ?? 2;
  return JSON.stringify(value, null, indent) + (existing.endsWith('\n') ? '\n' : '');
}

/** `serversKey`: the object that holds the servers (`mcpServers`; OpenCode's and Kilo Code's `mcp`). */
export function mergeJsonServer(
  existing: string | undefined,
  key: string,
  entry: Record<string, unknown>,
  serversKey = 'mcpServers',
): ConfigMerge {
  if (existing === undefined || existing.trim() === '') {
    return { ok: true, change: 'create', text: `${JSON.stringify({ [serversKey]: { [key]: entry } }, null, 2)}\n`, others: [] };
  }
  const parsed = parseJsonObject(existing, `{ "${serversKey}": { … } }`);
  if ('problem' in parsed) return { ok: false, problem: parsed.problem };
  const { root } = parsed;
  const servers = root[serversKey];
  if (servers !== undefined && !isObject(servers)) return { ok: false, problem: l10n.t('"{0}" in it is not an object', serversKey) };
  const others = Object.keys(servers ?? {}).filter((name) => name !== key);
  const before = servers?.[key];
  if (before !== undefined && isDeepStrictEqual(before, entry)) return { ok: true, change: 'unchanged', text: existing, others };
  // Assigning an existing key keeps its place; a new one goes last.
  const merged = { ...root, [serversKey]: { ...(servers ?? {}), [key]: entry } };
  const text = formatLike(existing, merged);
  return { ok: true, change: before === undefined ? 'add' : 'replace', text, others };
}
