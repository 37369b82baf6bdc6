/**
 * The flags people need to trust a copy, each with a plain-words explanation. Values use the
 * engine's own words (`complete=false`) so they can be compared with a tool result at a glance.
 */
import { h } from './dom';
import { bytes, bytesExact, num } from './format';
import type { DescribeResult, PageResult, StreamFacts } from './protocol';
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
export const END_OF_SAVED = 'You reached the end of what was saved, and what was saved is not all.';

export function computeFlags(d: DescribeResult, page: PageResult | undefined): Flag[] {
  const { info, command, unreadable } = d;
  const flags: Flag[] = [];

  if (info.evicted) {
    flags.push({
      key: 'saved',
      label: 'copy',
      value: 'evicted',
      raw: 'evicted',
      tone: 'error',
      tip: `The copy was saved, then evicted to keep the session within its storage quota: its content is gone and read_tool_output answers EVICTED. ${unreadable?.message ?? ''}`.trim(),
    });
  } else if (unreadable) {
    flags.push({
      key: 'saved',
      label: 'copy',
      value: 'unreadable',
      raw: 'unreadable',
      tone: 'error',
      tip: `The copy cannot be read back: ${unreadable.message}`,
    });
  } else {
    flags.push({
      key: 'saved',
      label: 'copy',
      value: 'saved',
      raw: 'saved',
      tone: 'ok',
      tip: `The copy is saved in this session and read_tool_output can page it with outputId ${info.outputId}.`,
    });
  }

  const gap =
    info.gapOffset !== undefined
      ? ` The gap sits at byte ${num(info.gapOffset)} of the copy: the bytes before and after that offset were not next to each other in the real output.`
      : '';
  flags.push(
    info.complete
      ? {
          key: 'complete',
          label: 'complete',
          value: 'true',
          raw: 'true',
          tone: 'ok',
          tip: 'complete=true: the copy holds every byte the tool produced. Nothing was dropped.',
        }
      : {
          key: 'complete',
          label: 'complete',
          value: 'false',
          raw: 'false',
          tone: 'warn',
          tip: `complete=false: the copy is not the whole output. ${info.droppedBytes > 0 ? `${bytesExact(info.droppedBytes)} were dropped before it was saved.` : 'The tool reported that bytes were missing before it was saved.'}${gap} Every page, the last one included, reports complete=false.`,
        },
  );

  if (page) {
    const end = !page.hasMore;
    flags.push(
      end
        ? {
            key: 'hasMore',
            label: 'hasMore',
            value: 'false',
            raw: 'false',
            tone: page.complete ? 'ok' : 'warn',
            tip: page.complete
              ? 'hasMore=false on this page: it reaches the end of the copy, and the copy is the whole output.'
              : `hasMore=false with complete=false: ${END_OF_SAVED.charAt(0).toLowerCase()}${END_OF_SAVED.slice(1)}`,
          }
        : {
            key: 'hasMore',
            label: 'hasMore',
            value: 'true',
            raw: 'true',
            tip: `hasMore=true on this page: more saved bytes follow; the next page starts at byte ${num(page.nextOffset)}.`,
          },
    );
  } else {
    flags.push({
      key: 'hasMore',
      label: 'hasMore',
      value: '—',
      raw: 'none',
      tone: 'muted',
      tip: 'hasMore describes one page; no page of the copy is showing.',
    });
  }

  flags.push(
    info.droppedBytes > 0
      ? {
          key: 'dropped',
          label: 'dropped',
          value: info.gapOffset !== undefined ? `${bytes(info.droppedBytes)} at byte ${num(info.gapOffset)}` : bytes(info.droppedBytes),
          raw: String(info.droppedBytes),
          tone: 'warn',
          tip: `${bytesExact(info.droppedBytes)} of the output are not in the copy: capture kept the head and the tail and dropped the middle.${gap || ' Where they were dropped is not recorded.'}`,
        }
      : {
          key: 'dropped',
          label: 'dropped',
          value: 'none',
          raw: '0',
          tone: 'ok',
          tip: 'No bytes were dropped: the copy is byte-for-byte what the tool produced.',
        },
  );

  if (command.stdout) flags.push(streamFlag('stdout', 'standard output', command.stdout));
  if (command.stderr) flags.push(streamFlag('stderr', 'standard error', command.stderr));

  if (command.signal) {
    flags.push({
      key: 'exit',
      label: 'exit',
      value: `signal ${command.signal}`,
      raw: command.signal,
      tone: 'error',
      tip: `The command was ended by the signal ${command.signal}, so it has no exit status.`,
    });
  } else if (typeof command.exitCode === 'number') {
    const ok = command.exitCode === 0;
    flags.push({
      key: 'exit',
      label: 'exit',
      value: String(command.exitCode),
      raw: String(command.exitCode),
      tone: ok ? 'ok' : 'error',
      tip: ok
        ? 'The command exited with status 0: it reported success.'
        : `The command exited with status ${command.exitCode}: a non-zero status usually means it failed.`,
    });
  } else if (command.exitCode === null) {
    flags.push({
      key: 'exit',
      label: 'exit',
      value: 'none',
      raw: 'none',
      tone: 'muted',
      tip: 'The command did not report an exit status.',
    });
  }
  if (command.timedOut !== undefined) {
    flags.push({
      key: 'timedOut',
      label: 'timed out',
      value: command.timedOut ? 'yes' : 'no',
      raw: String(command.timedOut),
      tone: command.timedOut ? 'error' : 'ok',
      tip: command.timedOut
        ? 'The command ran past its timeout and was stopped, with everything it started. Its output ends where it was stopped.'
        : 'The command finished before its timeout.',
    });
  }
  if (command.cancelled !== undefined) {
    flags.push({
      key: 'cancelled',
      label: 'cancelled',
      value: command.cancelled ? 'yes' : 'no',
      raw: String(command.cancelled),
      tone: command.cancelled ? 'warn' : 'ok',
      tip: command.cancelled
        ? 'The run was cancelled (by the user or the agent) and the command was stopped. Its output ends where it was stopped.'
        : 'The run was not cancelled.',
    });
  }

  const preview = d.preview;
  flags.push({
    key: 'preview',
    label: 'preview',
    value: preview.source,
    raw: preview.source,
    tone: preview.source === 'recorded' ? 'ok' : 'muted',
    tip:
      preview.source === 'recorded'
        ? 'The preview shown is the exact text the model received, recorded when the tool ran.'
        : (preview.note ?? 'The preview the model received is not available.'),
  });
  return flags;
}

function streamFlag(key: 'stdout' | 'stderr', name: string, s: StreamFacts): Flag {
  const value = s.complete ? `${bytes(s.totalBytes)} (all)` : `${bytes(s.capturedBytes)} of ${bytes(s.totalBytes)}`;
  const tip = s.complete
    ? `The command wrote ${bytesExact(s.totalBytes)} to ${name}; capture kept all of them.`
    : `The command wrote ${bytesExact(s.totalBytes)} to ${name}; capture kept ${bytesExact(s.capturedBytes)} (its head and tail) and dropped ${bytesExact(s.droppedBytes)} in between.`;
  return { key, label: key, value, raw: `${s.capturedBytes}/${s.totalBytes}`, tone: s.complete ? undefined : 'warn', tip };
}

export function renderFlags(container: HTMLElement, flags: Flag[]): void {
  // Flags are rebuilt on every page; keep keyboard focus on the same flag when that happens.
  const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-flag]')?.dataset.flag;
  hideTooltip();
  container.replaceChildren(
    ...flags.map((flag) => {
      const item = h(
        'div',
        {
          className: `flag${flag.tone ? ` tone-${flag.tone}` : ''}`,
          attrs: {
            tabindex: 0,
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
  if (focused) container.querySelector<HTMLElement>(`[data-flag="${focused}"]`)?.focus();
}
