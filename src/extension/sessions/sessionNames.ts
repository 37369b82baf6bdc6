/**
 * A session as a person knows it: when it started (local date and time), its first command, how many
 * outputs it holds and their size, each passed in as data (the start is the `created_at` its file
 * records; unknown, the name says so). The ID (s20261205-ad2f7f183669) is only ever the detail, never
 * read for any of that. Free of VS Code (translated with @vscode/l10n, which activation configures from
 * VS Code's bundle): the picker, the tree, the inspector's banner and its host side all name sessions
 * with these functions.
 */
import * as l10n from '@vscode/l10n';
import { outputLabel } from '../../core/commandLabel';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';
import { sizeText } from '../sizes';
import { exactTime } from '../../../webview/times';
import type { OutputInfo } from '../../core/types';
import type { SessionOrigin } from './sessionStats';

export type { SessionOrigin };

/** What a session's name is made of, computed from its data. */
export interface SessionSummary {
  sessionId: string;
  /** When the session was created (epoch ms), as its file records it; undefined when it cannot be read. */
  startedAt?: number;
  /** The first line of its oldest output's command or title. */
  firstCommand?: string;
  /** Outputs whose copies it still holds (not evicted). */
  outputs: number;
  /** Their bytes. */
  retainedBytes: number;
  /** For a fork (Fork Session), the session it was forked from, as a person knows it: when it started and its first command. */
  forkOf?: string;
}

/** A session's summary from its outputs (any order). */
export function summarize(sessionId: string, startedAt: number | undefined, outputs: readonly OutputInfo[]): SessionSummary {
  let oldest: OutputInfo | undefined;
  let outputsHeld = 0;
  let retainedBytes = 0;
  for (const info of outputs) {
    if (!oldest || info.createdAt < oldest.createdAt) oldest = info;
    if (info.evicted) continue;
    outputsHeld++;
    retainedBytes += info.totalBytes;
  }
  // Named briefly (program and key argument): a script's first 40 characters say nothing.
  const first = oldest && outputLabel(oldest.title ?? oldest.tool ?? '', oldest.tool === RUN_COMMAND_TOOL && !!oldest.title);
  return {
    sessionId,
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(first ? { firstCommand: first } : {}),
    outputs: outputsHeld,
    retainedBytes,
  };
}

/** The parts of a session's name: when, what first, how much, and for a fork which session it came from. */
export function sessionParts(summary: SessionSummary, locale?: string): { when: string; first: string; contents: string; fork?: string } {
  return {
    ...(summary.forkOf !== undefined ? { fork: l10n.t('fork of {0}', summary.forkOf) } : {}),
    when: startedText(summary, locale),
    first: summary.firstCommand ?? l10n.t('no command yet'),
    contents:
      summary.outputs === 0
        ? l10n.t('no outputs')
        : l10n.t('{outputs} · {size}', {
            outputs: summary.outputs === 1 ? l10n.t('1 output') : l10n.t('{0} outputs', summary.outputs.toLocaleString(locale)),
            size: sizeText(summary.retainedBytes),
          }),
  };
}

/**
 * The session's name in one line: "Dec 5, 2026, 9:30:12 PM · sh build-log.sh · 3 outputs · 1.2 MiB",
 * and for a fork "… · fork of Dec 5, 2026, 9:10:45 PM · sh build-log.sh".
 */
export function sessionName(summary: SessionSummary, locale?: string): string {
  const { when, first, contents, fork } = sessionParts(summary, locale);
  const name = l10n.t('{when} · {first} · {contents}', { when, first, contents });
  return fork ? `${name} · ${fork}` : name;
}

/** A session named briefly, as a fork names its parent: when it started and its first command. */
export function sessionShortName(summary: SessionSummary, locale?: string): string {
  const { when, first } = sessionParts(summary, locale);
  return `${when} · ${first}`;
}

function startedText(summary: SessionSummary, locale: string | undefined): string {
  // When the session's file cannot say, the name says so: the ID is never read for a date.
  if (summary.startedAt === undefined) return l10n.t('start unknown');
  return exactTime(summary.startedAt, locale);
}

/**
 * A text for a quick pick's label or description, shown and read as written: VS Code reads `$(name)` there
 * as an icon, and its screen-reader label drops every `$(…)` (a first command `seq $(seq 1 20)` would be
 * read "seq seq 1 20"). A word joiner between `$` and `(` (invisible, and skipped by screen readers) keeps it text.
 */
export const plainInQuickPick = (text: string): string => text.replace(/\$\(/g, '$\u2060(');
