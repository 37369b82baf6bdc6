/**
 * Adds (or updates) one server's `[mcp_servers.<key>]` table in Codex's `config.toml`, editing the
 * text in place so every comment, other table and server stays as the user wrote it: the table is
 * appended, or its section (header to the next header) is replaced. smol-toml parses the file
 * before (a malformed file is reported, never rewritten) and the result after: the edit must give
 * exactly the old document with this one server set, or nothing is written.
 */
import { isDeepStrictEqual } from 'node:util';
import * as l10n from '@vscode/l10n';
import { TomlError, parse, stringify, type TomlTable } from 'smol-toml';
import type { ConfigMerge } from './merge';

const TABLE = 'mcp_servers';

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

function parseToml(text: string): { ok: true; doc: TomlTable } | { ok: false; problem: string } {
  try {
    return { ok: true, doc: parse(text) };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const problem =
      error instanceof TomlError
        ? l10n.t('it is not valid TOML at line {line}, column {column} ({message})', { line: error.line, column: error.column, message })
        : l10n.t('it is not valid TOML ({0})', message);
    return { ok: false, problem };
  }
}

/** Header lines `[mcp_servers.<key>]` and `[mcp_servers.<key>.<sub>]` (bare or quoted key), by line index. */
function ownHeaders(lines: string[], key: string): { first: number; indices: number[] } | undefined {
  const quoted = `(?:${escape(key)}|"${escape(key)}"|'${escape(key)}')`;
  const own = new RegExp(`^\\s*\\[\\s*${TABLE}\\s*\\.\\s*${quoted}\\s*(\\.[^\\]]*)?\\]\\s*(#.*)?$`);
  const indices = lines.flatMap((line, index) => (own.test(line) ? [index] : []));
  return indices.length ? { first: indices[0], indices } : undefined;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isHeader = (line: string): boolean => /^\s*\[/.test(line);

export function mergeTomlServer(existing: string | undefined, key: string, entry: Record<string, unknown>): ConfigMerge {
  const table = `[${TABLE}.${key}]\n${stringify(entry)}`;
  if (existing === undefined || existing.trim() === '') return { ok: true, change: 'create', text: table, others: [] };
  const before = parseToml(existing);
  if (!before.ok) return before;
  const servers = before.doc[TABLE];
  if (servers !== undefined && !isTable(servers)) return { ok: false, problem: l10n.t('"{0}" in it is not a table', TABLE) };
  const others = Object.keys(servers ?? {}).filter((name) => name !== key);
  const current = servers?.[key];
  if (current !== undefined && isDeepStrictEqual(normalize(current), normalize(entry)))
    return { ok: true, change: 'unchanged', text: existing, others };

  const newline = existing.includes('\r\n') ? '\r\n' : '\n';
  let text: string;
  if (current === undefined) {
    const body = existing.endsWith('\n') ? existing : existing + newline;
    text = `${body}${newline}${table.replace(/\n/g, newline)}`;
  } else {
    const lines = existing.split(/\r?\n/);
    const headers = ownHeaders(lines, key);
    if (!headers) {
      return {
        ok: false,
        problem: l10n.t(
          'it defines "{0}" in a form this command does not edit (dotted keys or an inline table); change that entry by hand',
          `${TABLE}.${key}`,
        ),
      };
    }
    // Every section of ours (the table and its sub-tables) goes; the new table takes the first's place.
    const drop = new Set<number>();
    for (const start of headers.indices) {
      drop.add(start);
      for (let i = start + 1; i < lines.length && !isHeader(lines[i]); i++) drop.add(i);
    }
    const kept: string[] = [];
    lines.forEach((line, index) => {
      if (index === headers.first) kept.push(...table.trimEnd().split('\n'), '');
      if (!drop.has(index)) kept.push(line);
    });
    text = kept.join(newline);
  }
  // The edit must give the old document with exactly this server set (and remain TOML).
  const after = parseToml(text);
  const expected = { ...before.doc, [TABLE]: { ...(servers ?? {}), [key]: entry } };
  if (!after.ok || !isDeepStrictEqual(normalize(after.doc), normalize(expected))) {
    return {
      ok: false,
      problem: l10n.t(
        'editing it in place would change more than the "{0}" table (its layout is unusual); add the entry by hand',
        `${TABLE}.${key}`,
      ),
    };
  }
  return { ok: true, change: current === undefined ? 'add' : 'replace', text, others };
}

/** Key order and prototypes aside (TOML tables are unordered; smol-toml's have no prototype): plain sorted objects. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (!isTable(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, normalize(value[k])]),
  );
}
