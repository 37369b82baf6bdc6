/**
 * The PostToolUse hook "Connect Other Agents…" gives Claude Code (src/mcp/hook.ts runs it): one
 * entry in the workspace's `.claude/settings.json`,
 *
 *   { "hooks": { "PostToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "…" } ] } ] } }
 *
 * merged with what is there: every other key, event and hook kept as written, in place; our own
 * entry (found by its command's hook arguments) replaced when it differs. A file that is not such a
 * JSON object is reported, never rewritten. The other agents' hooks files are merged the same way
 * (mergeHook): Gemini CLI's and Qwen Code's settings.json, Copilot CLI's .github/hooks/*.json.
 */
import { isDeepStrictEqual } from 'node:util';
import * as l10n from '@vscode/l10n';
import { formatLike, isObject, parseJsonObject } from './jsonConfig';
import type { ConfigMerge } from './merge';

/** Where a hook entry goes in its file: `{ "hooks": { <event>: [ …, <entry> ] } }`. */
export interface HookPlace {
  /** The event's key under "hooks": PostToolUse, AfterTool, postToolUse. */
  event: string;
  /** The tools it runs after, as the file names them (the matcher), or '*': every tool. */
  tools: string;
  /** The server's arguments that run the hook (`hook <name>`): an entry whose command has them is ours. */
  args: readonly string[];
  /** The keys a new file starts with (Copilot CLI's `"version": 1`). */
  start?: Record<string, unknown>;
}

/** The server's arguments that run the hook instead of serving (src/mcp/main.ts). */
export const CLAUDE_HOOK_ARGS = ['hook', 'claude-code-post-tool-use'] as const;
/**
 * The tools it runs after: Claude Code's Bash, whose big outputs Claude Code saves to a file (the
 * hook answers any tool whose response names a saved file, and nothing for the rest; a wider
 * matcher would start a process after every call for little).
 */
export const CLAUDE_HOOK_MATCHER = 'Bash';

/** A command line word for a POSIX shell (the agents run hook commands with one; Copilot CLI's is `bash`). */
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** A hook's command: the installed launcher with the hook's arguments (`hook <name>`), one shell word each. */
export function hookCommand(node: string, launcher: string, args: readonly string[]): string {
  return [node, launcher, ...args].map(shellWord).join(' ');
}

/** Claude Code's hook command. */
export function claudeHookCommand(node: string, launcher: string): string {
  return hookCommand(node, launcher, CLAUDE_HOOK_ARGS);
}

/** The matcher group "Connect Other Agents…" writes. */
export function claudeHookEntry(command: string): Record<string, unknown> {
  return { matcher: CLAUDE_HOOK_MATCHER, hooks: [{ type: 'command', command }] };
}

/** Adds (or updates) our PostToolUse entry in `.claude/settings.json`'s text (undefined: no file). */
export function mergeClaudeHook(existing: string | undefined, entry: Record<string, unknown>): ConfigMerge {
  return mergeHook(existing, { event: 'PostToolUse', tools: CLAUDE_HOOK_MATCHER, args: CLAUDE_HOOK_ARGS }, entry);
}

/** Whether a hook runs our command: `command` (Claude Code, Gemini CLI, Qwen Code), `bash` or `powershell` (Copilot CLI). */
const runsOurs = (hook: unknown, marker: string): boolean =>
  isObject(hook) && ['command', 'bash', 'powershell'].some((key) => typeof hook[key] === 'string' && hook[key].includes(marker));

/**
 * Whether an entry of the event's list is ours: it runs our hook (whatever launcher path), itself
 * (Copilot CLI's entries are hooks) or as one of its group's `hooks` (everyone else's).
 */
const isOurs = (group: unknown, marker: string): boolean =>
  runsOurs(group, marker) || (isObject(group) && Array.isArray(group.hooks) && group.hooks.some((hook) => runsOurs(hook, marker)));

/**
 * Adds (or updates) our entry in the list `hooks.<event>` of a hooks file's text (undefined: no
 * file): Claude Code's, Gemini CLI's and Qwen Code's settings.json, Copilot CLI's
 * .github/hooks/*.json. Every other key, event and entry is kept as written, in place; ours (found
 * by its command's hook arguments) replaced when it differs; a new one goes last.
 */
export function mergeHook(existing: string | undefined, place: HookPlace, entry: Record<string, unknown>): ConfigMerge {
  const { event } = place;
  if (existing === undefined || existing.trim() === '') {
    return {
      ok: true,
      change: 'create',
      text: `${JSON.stringify({ ...place.start, hooks: { [event]: [entry] } }, null, 2)}\n`,
      others: [],
    };
  }
  const parsed = parseJsonObject(existing, '{ "hooks": { … } }');
  if ('problem' in parsed) return { ok: false, problem: parsed.problem };
  const { root } = parsed;
  const hooks = root.hooks;
  if (hooks !== undefined && !isObject(hooks)) return { ok: false, problem: l10n.t('"{0}" in it is not an object', 'hooks') };
  const groups = hooks?.[event];
  if (groups !== undefined && !Array.isArray(groups)) return { ok: false, problem: l10n.t('"{0}" in it is not a list', `hooks.${event}`) };
  const list: unknown[] = groups ?? [];
  const marker = place.args.join(' ');
  // The other hooks, named as people read them: "PostToolUse Edit|Write", "Stop".
  const others = [
    ...Object.keys(hooks ?? {}).filter((name) => name !== event),
    ...list
      .filter((group) => !isOurs(group, marker))
      .map((group) => `${event} ${isObject(group) && typeof group.matcher === 'string' && group.matcher !== '' ? group.matcher : '*'}`),
  ];
  const at = list.findIndex((group) => isOurs(group, marker));
  if (at >= 0 && isDeepStrictEqual(list[at], entry)) return { ok: true, change: 'unchanged', text: existing, others };
  // Our entry keeps its place; a new one goes last, after the person's own.
  const merged = at >= 0 ? list.map((group, i) => (i === at ? entry : group)) : [...list, entry];
  // The keys a new file starts with, where they are missing (in front, as in a new file).
  const missing = Object.fromEntries(Object.entries(place.start ?? {}).filter(([key]) => !(key in root)));
  const next = { ...missing, ...root, hooks: { ...(hooks ?? {}), [event]: merged } };
  const text = formatLike(existing, next);
  return { ok: true, change: at >= 0 ? 'replace' : 'add', text, others };
}
