/**
 * The PostToolUse hook "Connect Other Agents…" gives Claude Code (src/mcp/hook.ts runs it): one
 * entry in the workspace's `.claude/settings.json`,
 *
 *   { "hooks": { "PostToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "…" } ] } ] } }
 *
 * merged with what is there: every other key, event and hook kept as written, in place; our own
 * entry (found by its command's hook arguments) replaced when it differs. A file that is not such a
 * JSON object is reported, never rewritten.
 */
import { isDeepStrictEqual } from 'node:util';
import * as l10n from '@vscode/l10n';
import { formatLike, isObject, parseJsonObject } from './jsonConfig';
import type { ConfigMerge } from './merge';

/** The server's arguments that run the hook instead of serving (src/mcp/main.ts). */
export const CLAUDE_HOOK_ARGS = ['hook', 'claude-code-post-tool-use'] as const;
/**
 * The tools it runs after: Claude Code's Bash, whose big outputs Claude Code saves to a file (the
 * hook answers any tool whose response names a saved file, and nothing for the rest; a wider
 * matcher would start a process after every call for little).
 */
export const CLAUDE_HOOK_MATCHER = 'Bash';

/** A command line word for a POSIX shell (Claude Code runs hook commands with one). */
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The hook's command: the installed launcher with the hook's arguments. */
export function claudeHookCommand(node: string, launcher: string): string {
  return [node, launcher, ...CLAUDE_HOOK_ARGS].map(shellWord).join(' ');
}

/** The matcher group "Connect Other Agents…" writes. */
export function claudeHookEntry(command: string): Record<string, unknown> {
  return { matcher: CLAUDE_HOOK_MATCHER, hooks: [{ type: 'command', command }] };
}

/** Whether a matcher group is ours: one of its commands runs our hook (whatever launcher path). */
const isOurs = (group: unknown): boolean =>
  isObject(group) &&
  Array.isArray(group.hooks) &&
  group.hooks.some((hook) => isObject(hook) && typeof hook.command === 'string' && hook.command.includes(CLAUDE_HOOK_ARGS.join(' ')));

/** Adds (or updates) our PostToolUse entry in `.claude/settings.json`'s text (undefined: no file). */
export function mergeClaudeHook(existing: string | undefined, entry: Record<string, unknown>): ConfigMerge {
  if (existing === undefined || existing.trim() === '') {
    return { ok: true, change: 'create', text: `${JSON.stringify({ hooks: { PostToolUse: [entry] } }, null, 2)}\n`, others: [] };
  }
  const parsed = parseJsonObject(existing, '{ "hooks": { … } }');
  if ('problem' in parsed) return { ok: false, problem: parsed.problem };
  const { root } = parsed;
  const hooks = root.hooks;
  if (hooks !== undefined && !isObject(hooks)) return { ok: false, problem: l10n.t('"{0}" in it is not an object', 'hooks') };
  const groups = hooks?.PostToolUse;
  if (groups !== undefined && !Array.isArray(groups))
    return { ok: false, problem: l10n.t('"{0}" in it is not a list', 'hooks.PostToolUse') };
  const list: unknown[] = groups ?? [];
  // The other hooks, named as people read them: "PostToolUse Edit|Write", "Stop".
  const others = [
    ...Object.keys(hooks ?? {}).filter((event) => event !== 'PostToolUse'),
    ...list
      .filter((group) => !isOurs(group))
      .map((group) => `PostToolUse ${isObject(group) && typeof group.matcher === 'string' && group.matcher !== '' ? group.matcher : '*'}`),
  ];
  const at = list.findIndex(isOurs);
  if (at >= 0 && isDeepStrictEqual(list[at], entry)) return { ok: true, change: 'unchanged', text: existing, others };
  // Our entry keeps its place; a new one goes last, after the person's own.
  const merged = at >= 0 ? list.map((group, i) => (i === at ? entry : group)) : [...list, entry];
  const next = { ...root, hooks: { ...(hooks ?? {}), PostToolUse: merged } };
  const text = formatLike(existing, next);
  return { ok: true, change: at >= 0 ? 'replace' : 'add', text, others };
}
