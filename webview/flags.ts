/**
 * The flags people need to trust a copy, each with a plain-words explanation. Values use the
 * engine's own words (`complete=false`) so they can be compared with a tool result at a glance.
 */
import * as l10n from '@vscode/l10n';
import { h } from './dom';
import { bytes, bytesExact, num, sentences } from './format';
import type { DescribeResult, StreamFacts } from './protocol';
import { hideTooltip, withTooltip } from './tooltip';

export type Tone = 'ok' | 'warn' | 'error' | 'muted';

export interface Flag {
  key: string;
  label: string;
  /** What is shown. */
  value: string;
  /** A stable machine value (data-value), for tests and for styling. */
  raw: string;
  tone?: Tone;
  tip: string;
}

/** The plain-words sentence for the one combination people misread. */
export const endOfSaved = (): string => l10n.t('You reached the end of what was saved, and what was saved is not all.');

/**
 * The output's flags: facts of the whole output, the same whichever page is on screen and wherever
 * the inspector is (editor or side view). A page's own facts (its bytes, hasMore) are the pager's.
 */
export function computeFlags(d: DescribeResult): Flag[] {
  const { info, command, unreadable } = d;
  const flags: Flag[] = [];

  if (info.evicted) {
    flags.push({
      key: 'saved',
      label: l10n.t('copy'),
      value: l10n.t('evicted'),
      raw: 'evicted',
      tone: 'error',
      tip: sentences(
        l10n.t(
          'The copy was saved, then evicted to keep the session within its storage quota: its content is gone and read_tool_output answers EVICTED.',
        ),
        unreadable?.message,
      ),
    });
  } else if (unreadable) {
    flags.push({
      key: 'saved',
      label: l10n.t('copy'),
      value: l10n.t('unreadable'),
      raw: 'unreadable',
      tone: 'error',
      tip: l10n.t('The copy cannot be read back: {0}', unreadable.message),
    });
  } else {
    flags.push({
      key: 'saved',
      label: l10n.t('copy'),
      value: l10n.t('saved'),
      raw: 'saved',
      tone: 'ok',
      tip: l10n.t('The copy is saved in this session and read_tool_output can page it with outputId {0}.', info.outputId),
    });
  }

  const gap =
    info.gapOffset !== undefined
      ? l10n.t(
          'The gap sits at byte {0} of the copy: the bytes before and after that offset were not next to each other in the real output.',
          num(info.gapOffset),
        )
      : undefined;
  flags.push(
    info.complete
      ? {
          key: 'complete',
          label: 'complete',
          value: 'true',
          raw: 'true',
          tone: 'ok',
          tip: l10n.t('complete=true: the copy holds every byte the tool produced. Nothing was dropped.'),
        }
      : {
          key: 'complete',
          label: 'complete',
          value: 'false',
          raw: 'false',
          tone: 'warn',
          tip: sentences(
            l10n.t('complete=false: the copy is not the whole output.'),
            info.droppedBytes > 0
              ? l10n.t('{0} were dropped before it was saved.', bytesExact(info.droppedBytes))
              : l10n.t('The tool reported that bytes were missing before it was saved.'),
            gap,
            l10n.t('Every page, the last one included, reports complete=false.'),
          ),
        },
  );

  flags.push(
    info.droppedBytes > 0
      ? {
          key: 'dropped',
          label: l10n.t('dropped'),
          value:
            info.gapOffset !== undefined
              ? l10n.t('{size} at byte {offset}', { size: bytes(info.droppedBytes), offset: num(info.gapOffset) })
              : bytes(info.droppedBytes),
          raw: String(info.droppedBytes),
          tone: 'warn',
          tip: sentences(
            l10n.t(
              '{0} of the output are not in the copy: capture kept the head and the tail and dropped the middle.',
              bytesExact(info.droppedBytes),
            ),
            gap ?? l10n.t('Where they were dropped is not recorded.'),
          ),
        }
      : {
          key: 'dropped',
          label: l10n.t('dropped'),
          value: l10n.t('none'),
          raw: '0',
          tone: 'ok',
          tip: l10n.t('No bytes were dropped: the copy is byte-for-byte what the tool produced.'),
        },
  );

  if (command.stdout) flags.push(streamFlag('stdout', l10n.t('standard output'), command.stdout));
  if (command.stderr) flags.push(streamFlag('stderr', l10n.t('standard error'), command.stderr));

  if (command.signal) {
    flags.push({
      key: 'exit',
      label: l10n.t('exit'),
      value: l10n.t('signal {0}', command.signal),
      raw: command.signal,
      tone: 'error',
      tip: l10n.t('The command was ended by the signal {0}, so it has no exit status.', command.signal),
    });
  } else if (typeof command.exitCode === 'number') {
    const ok = command.exitCode === 0;
    flags.push({
      key: 'exit',
      label: l10n.t('exit'),
      value: String(command.exitCode),
      raw: String(command.exitCode),
      tone: ok ? 'ok' : 'error',
      tip: ok
        ? l10n.t('The command exited with status 0: it reported success.')
        : l10n.t('The command exited with status {0}: a non-zero status usually means it failed.', command.exitCode),
    });
  } else if (command.exitCode === null) {
    flags.push({
      key: 'exit',
      label: l10n.t('exit'),
      value: l10n.t('none'),
      raw: 'none',
      tone: 'muted',
      tip: l10n.t('The command did not report an exit status.'),
    });
  }
  if (command.timedOut !== undefined) {
    flags.push({
      key: 'timedOut',
      label: l10n.t('timed out'),
      value: command.timedOut ? l10n.t('yes') : l10n.t('no'),
      raw: String(command.timedOut),
      tone: command.timedOut ? 'error' : 'ok',
      tip: command.timedOut
        ? l10n.t('The command ran past its timeout and was stopped, with everything it started. Its output ends where it was stopped.')
        : l10n.t('The command finished before its timeout.'),
    });
  }
  if (command.cancelled !== undefined) {
    flags.push({
      key: 'cancelled',
      label: l10n.t('cancelled'),
      value: command.cancelled ? l10n.t('yes') : l10n.t('no'),
      raw: String(command.cancelled),
      tone: command.cancelled ? 'warn' : 'ok',
      tip: command.cancelled
        ? l10n.t('The run was cancelled (by the user or the agent) and the command was stopped. Its output ends where it was stopped.')
        : l10n.t('The run was not cancelled.'),
    });
  }

  const preview = d.preview;
  flags.push({
    key: 'preview',
    label: l10n.t('preview'),
    value: previewSourceName(preview.source),
    raw: preview.source,
    tone: preview.source === 'recorded' ? 'ok' : 'muted',
    tip:
      preview.source === 'recorded'
        ? l10n.t('The preview shown is the exact text the model received, recorded when the tool ran.')
        : (preview.note ?? l10n.t('The preview the model received is not available.')),
  });
  return flags;
}

/** The preview's source in words (the flag's data-value keeps the protocol's word). */
function previewSourceName(source: DescribeResult['preview']['source']): string {
  const names: Record<string, string> = {
    recorded: l10n.t('recorded'),
    recomputed: l10n.t('recomputed'),
    unavailable: l10n.t('unavailable'),
  };
  return names[source] ?? source;
}

function streamFlag(key: 'stdout' | 'stderr', name: string, s: StreamFacts): Flag {
  const value = s.complete
    ? l10n.t('{0} (all)', bytes(s.totalBytes))
    : l10n.t('{captured} kept of {total}', { captured: bytes(s.capturedBytes), total: bytes(s.totalBytes) });
  const tip = s.complete
    ? l10n.t('The command wrote {total} to {stream}; capture kept all of them.', { total: bytesExact(s.totalBytes), stream: name })
    : l10n.t('The command wrote {total} to {stream}; capture kept {captured} (its head and tail) and dropped {dropped} in between.', {
        total: bytesExact(s.totalBytes),
        stream: name,
        captured: bytesExact(s.capturedBytes),
        dropped: bytesExact(s.droppedBytes),
      });
  return { key, label: key, value, raw: `${s.capturedBytes}/${s.totalBytes}`, tone: s.complete ? undefined : 'warn', tip };
}

/**
 * The flags, one Tab stop: Tab enters the group at the flag last focused (the first at first), and the
 * arrow keys, Home and End move inside it (a roving tabindex), so the keys after it are not 9 presses away.
 */
export function renderFlags(container: HTMLElement, flags: Flag[]): void {
  // Flags are rebuilt on every page; keep keyboard focus, and the group's Tab stop, on the same flag.
  const active = document.activeElement as HTMLElement | null;
  const focused = container.contains(active) ? active?.closest<HTMLElement>('[data-flag]')?.dataset.flag : undefined;
  const current = focused ?? container.querySelector<HTMLElement>('[data-flag][tabindex="0"]')?.dataset.flag;
  hideTooltip();
  container.replaceChildren(
    ...flags.map((flag) => {
      const item = h(
        'div',
        {
          className: `flag${flag.tone ? ` tone-${flag.tone}` : ''}`,
          attrs: {
            tabindex: -1,
            role: 'listitem',
            'aria-label': `${flag.label}: ${flag.value}`,
            'data-flag': flag.key,
            'data-value': flag.raw,
          },
        },
        h('span', { className: 'flag-label' }, flag.label),
        h('span', { className: 'flag-value' }, flag.value),
      );
      return withTooltip(item, flag.tip);
    }),
  );
  const items = [...container.querySelectorAll<HTMLElement>('[data-flag]')];
  const stop = items.find((item) => item.dataset.flag === current) ?? items[0];
  stop?.setAttribute('tabindex', '0');
  if (focused) stop?.focus();
  if (!container.dataset.roving) {
    container.dataset.roving = 'true';
    container.addEventListener('keydown', (event) => moveAmongFlags(container, event));
  }
}

function moveAmongFlags(container: HTMLElement, event: KeyboardEvent): void {
  const items = [...container.querySelectorAll<HTMLElement>('[data-flag]')];
  const at = items.indexOf(document.activeElement as HTMLElement);
  if (at < 0) return;
  const to =
    event.key === 'ArrowRight' || event.key === 'ArrowDown'
      ? Math.min(at + 1, items.length - 1)
      : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
        ? Math.max(at - 1, 0)
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? items.length - 1
            : undefined;
  if (to === undefined) return;
  event.preventDefault();
  items[at].setAttribute('tabindex', '-1');
  items[to].setAttribute('tabindex', '0');
  items[to].focus();
}
