/**
 * What "Connect Other Agents…" will write, worked out before anything is written (so it can be
 * shown exactly), and the writing itself: each agent's file merged with what is there (merge
 * results in jsonConfig.ts / tomlConfig.ts), written atomically with its permissions kept, and only
 * if it still holds what the preview showed.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { describeError } from '../errors';
import { atomicWriteFile } from '../store/atomicWrite';
import { CONFIG_KEY, type AgentTarget } from './agents';
import { mergeClaudeHook } from './claudeHook';
import { mergeJsonServer } from './jsonConfig';
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

/** Reads each target's file and merges the server's entry into it; writes nothing. */
export async function planFiles(targets: readonly AgentTarget[]): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const target of targets) {
    let before: string | undefined;
    let merge: ConfigMerge;
    try {
      before = await readIfThere(target.file);
      merge =
        target.format === 'claude-hook'
          ? mergeClaudeHook(before, target.entry)
          : (target.format === 'json' ? mergeJsonServer : mergeTomlServer)(before, CONFIG_KEY, target.entry);
    } catch (error) {
      merge = { ok: false, problem: l10n.t('it cannot be read ({0})', describeError(error)) };
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
