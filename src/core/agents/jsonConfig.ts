/**
 * Adds (or updates) one server in an agent's JSON configuration (`{ "mcpServers": { … } }`:
 * Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`), keeping every other key and server as it
 * is, in its place. A file that is not such a JSON object is reported, never rewritten.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ConfigMerge } from './merge';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mergeJsonServer(existing: string | undefined, key: string, entry: Record<string, unknown>): ConfigMerge {
  if (existing === undefined || existing.trim() === '') {
    return { ok: true, change: 'create', text: `${JSON.stringify({ mcpServers: { [key]: entry } }, null, 2)}\n`, others: [] };
  }
  let root: unknown;
  try {
    root = JSON.parse(existing.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { ok: false, problem: `it is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isObject(root)) return { ok: false, problem: 'it is JSON, but not an object ({ "mcpServers": { … } })' };
  const servers = root.mcpServers;
  if (servers !== undefined && !isObject(servers)) return { ok: false, problem: '"mcpServers" in it is not an object' };
  const others = Object.keys(servers ?? {}).filter((name) => name !== key);
  const before = servers?.[key];
  if (before !== undefined && isDeepStrictEqual(before, entry)) return { ok: true, change: 'unchanged', text: existing, others };
  // Assigning an existing key keeps its place; a new one goes last.
  const merged = { ...root, mcpServers: { ...(servers ?? {}), [key]: entry } };
  const indent = /^[ \t]+(?=")/m.exec(existing)?.[0] ?? 2;
  const text = JSON.stringify(merged, null, indent) + (existing.endsWith('\n') ? '\n' : '');
  return { ok: true, change: before === undefined ? 'add' : 'replace', text, others };
}
