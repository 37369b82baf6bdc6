/**
 * What "Connect Other Agents…" will write, worked out before anything is written (so it can be
 * shown exactly), and the writing itself: each agent's file merged with what is there (merge
 * results in jsonConfig.ts / tomlConfig.ts / claudeHook.ts), written atomically with its permissions kept, and only
 * if it still holds what the preview showed.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { describeError } from '../errors';
import { atomicWriteFile } from '../store/atomicWrite';
import { CONFIG_KEY, type AgentTarget } from './agents';
import { mergeClaudeHook, mergeHook } from './claudeHook';
import { mergeJsonServer } from './jsonConfig';
import { mergePlugin } from './openCodePlugin';
import { unifiedDiff } from './lineDiff';
import type { ConfigMerge } from './merge';
import { mergeTomlServer } from './tomlConfig';

export interface PlannedFile {
  target: AgentTarget;
  /** The file's text now (undefined: no file). */
  before: string | undefined;
  merge: ConfigMerge;
  /** The unified diff of the change ('' when nothing changes or the file is left alone). */
  diff: string;
}

/** The target's entry merged into its file's text (undefined: no file). */
function mergeInto(target: AgentTarget, before: string | undefined): ConfigMerge {
  switch (target.format) {
    case 'claude-hook':
      return mergeClaudeHook(before, target.entry);
    case 'hook':
      return mergeHook(before, target.hook!, target.entry);
    case 'json':
      return mergeJsonServer(before, CONFIG_KEY, target.entry, target.serversKey);
    case 'toml':
      return mergeTomlServer(before, CONFIG_KEY, target.entry);
    case 'plugin':
      return mergePlugin(before, String(target.entry.source), l10n.t('a file of that name that Tool Output Recall did not write is there'));
  }
}

/**
 * Reads each target's file and merges the entry into it; writes nothing. A file two targets share
 * (Gemini CLI's and Qwen Code's settings.json: the server and the hook) is read once: the second
 * merges into what the first will have written, and is written after it (writePlanned then finds
 * the file as the first left it).
 */
export async function planFiles(targets: readonly AgentTarget[]): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const target of targets) {
    let before: string | undefined;
    let merge: ConfigMerge;
    let earlier: PlannedFile | undefined;
    for (const p of planned) if (p.target.file === target.file) earlier = p;
    if (earlier) {
      before = earlier.merge.ok ? earlier.merge.text : earlier.before;
      merge = earlier.merge.ok ? mergeInto(target, before) : earlier.merge;
    } else {
      try {
        before = await readIfThere(target.file);
        merge = mergeInto(target, before);
      } catch (error) {
        merge = { ok: false, problem: l10n.t('it cannot be read ({0})', describeError(error)) };
      }
    }
    const diff = merge.ok ? unifiedDiff(before ?? '', merge.text, before === undefined ? '/dev/null' : target.file, target.file) : '';
    planned.push({ target, before, merge, diff });
  }
  return planned;
}

export type WriteOutcome =
  | { file: string; agent: string; outcome: 'written'; change: 'create' | 'add' | 'replace' }
  | { file: string; agent: string; outcome: 'unchanged' }
  /** Left alone: malformed, changed since the preview, or the write failed; `why` completes "… was not written: ". */
  | { file: string; agent: string; outcome: 'skipped'; why: string };

/** Writes the planned files that change; a file that changed since it was planned is left alone. */
export async function writePlanned(planned: readonly PlannedFile[]): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = [];
  for (const { target, before, merge } of planned) {
    const base = { file: target.file, agent: target.name };
    if (!merge.ok) {
      outcomes.push({ ...base, outcome: 'skipped', why: merge.problem });
      continue;
    }
    if (merge.change === 'unchanged') {
      outcomes.push({ ...base, outcome: 'unchanged' });
      continue;
    }
    try {
      const now = await readIfThere(target.file);
      if (now !== before) {
        outcomes.push({ ...base, outcome: 'skipped', why: l10n.t('it changed after the preview was made; run the command again') });
        continue;
      }
      const mode = (await fs.stat(target.file).catch(() => undefined))?.mode;
      await fs.mkdir(path.dirname(target.file), { recursive: true });
      await atomicWriteFile(target.file, Buffer.from(merge.text));
      // The temporary file was private: give the file back its permissions (new files: the usual ones).
      await fs.chmod(target.file, mode !== undefined ? mode & 0o7777 : target.scope === 'user' ? 0o600 : 0o644);
      outcomes.push({ ...base, outcome: 'written', change: merge.change });
    } catch (error) {
      outcomes.push({ ...base, outcome: 'skipped', why: l10n.t('writing it failed ({0})', describeError(error)) });
    }
  }
  return outcomes;
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
