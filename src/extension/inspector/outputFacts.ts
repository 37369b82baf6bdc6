/**
 * What the inspector shows about one output besides its pages: the run_command facts from `extra`
 * (free-form JSON, so every field is checked) and the preview the model received, with its
 * omission marker where the tool recorded it. vscode-free: the browser tests run it in plain Node.
 */
import * as l10n from '@vscode/l10n';
import { previewHeadTail } from '../../core/preview';
import type { OutputInfo } from '../../core/types';
import type { CommandFacts, PreviewView, StreamFacts } from '../../../webview/protocol';
import { RUN_COMMAND_TOOL } from '../../core/toolNames';

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function streamFacts(value: unknown): StreamFacts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const s = value as Record<string, unknown>;
  if (!isNumber(s.totalBytes) || !isNumber(s.capturedBytes)) return undefined;
  const droppedBytes = isNumber(s.droppedBytes) ? s.droppedBytes : Math.max(0, s.totalBytes - s.capturedBytes);
  const complete = typeof s.complete === 'boolean' ? s.complete : droppedBytes === 0;
  return { totalBytes: s.totalBytes, capturedBytes: s.capturedBytes, droppedBytes, complete };
}

export function commandFacts(info: OutputInfo): CommandFacts {
  const extra = info.extra ?? {};
  const facts: CommandFacts = {};
  if (info.tool === RUN_COMMAND_TOOL && info.title) facts.command = info.title;
  if (typeof extra.command === 'string') facts.command = extra.command;
  if (typeof extra.cwd === 'string') facts.cwd = extra.cwd;
  if (isNumber(extra.exitCode) || extra.exitCode === null) facts.exitCode = extra.exitCode;
  if (typeof extra.signal === 'string' || extra.signal === null) facts.signal = extra.signal;
  if (typeof extra.timedOut === 'boolean') facts.timedOut = extra.timedOut;
  if (typeof extra.cancelled === 'boolean') facts.cancelled = extra.cancelled;
  facts.stdout = streamFacts(extra.stdout);
  facts.stderr = streamFacts(extra.stderr);
  return facts;
}

/**
 * The marker recorded with a preview (`extra.previewMarker`, see `PreviewMarker` in
 * src/core/preview.ts), checked against the text and the copy it came with. A copy retained before
 * markers were recorded (an older session) has none: its text is shown without the marker
 * highlighted, for reading the marker back out of the text could take a look-alike line for it.
 */
function recordedMarker(value: unknown, text: string, totalBytes: number): Pick<PreviewView, 'marker' | 'omitted'> {
  if (typeof value !== 'object' || value === null) return {};
  const { start, end, from, to } = value as Record<string, unknown>;
  if (!isNumber(start) || !isNumber(end) || !isNumber(from) || !isNumber(to)) return {};
  if (!(start >= 0 && start <= end && end <= text.length && from >= 0 && from <= to && to <= totalBytes)) return {};
  return { marker: { start, end }, omitted: { from, to } };
}

export interface PreviewInputs {
  info: OutputInfo;
  /** The copy's bytes, when it is readable (to recompute a preview that was not recorded). */
  bytes?: Uint8Array;
  /** The preview budget in force now (the `toolOutputRecall.previewBytes` setting). */
  budgetBytes: number;
}

export function previewView({ info, bytes, budgetBytes }: PreviewInputs): PreviewView {
  const extra = info.extra ?? {};
  if (typeof extra.preview === 'string') {
    // The exact text the model was given (src/core/tools/recordPreview.ts): for run_command and
    // run_code the whole result, header lines first; for @recall's capped results the preview alone.
    return { text: extra.preview, source: 'recorded', ...recordedMarker(extra.previewMarker, extra.preview, info.totalBytes) };
  }
  if (info.tool !== RUN_COMMAND_TOOL) {
    return {
      source: 'unavailable',
      note: info.tool
        ? l10n.t('The preview of this {tool} result was not recorded, and only {runCommand} previews can be rebuilt from the copy.', {
            tool: info.tool,
            runCommand: RUN_COMMAND_TOOL,
          })
        : l10n.t('The preview of this tool result was not recorded, and only {0} previews can be rebuilt from the copy.', RUN_COMMAND_TOOL),
    };
  }
  if (!bytes) {
    return { source: 'unavailable', note: l10n.t('The preview was not recorded, and the copy it would be rebuilt from is gone.') };
  }
  const budget = isNumber(extra.previewBytes) ? extra.previewBytes : budgetBytes;
  try {
    const preview = previewHeadTail(bytes, { budgetBytes: budget, kind: 'command', outputId: info.outputId, copyComplete: info.complete });
    const view: PreviewView = {
      text: preview.text,
      source: 'recomputed',
      note: isNumber(extra.previewBytes)
        ? l10n.t('Rebuilt from the copy with a {0}-byte budget: the exact text the model got was not recorded.', budget)
        : l10n.t(
            'Rebuilt from the copy with a {0}-byte budget (the current previewBytes setting): the exact text the model got was not recorded.',
            budget,
          ),
    };
    if (preview.omitted && preview.marker) {
      view.marker = preview.marker;
      view.omitted = { from: preview.omitted.from, to: preview.omitted.to };
    }
    return view;
  } catch (error) {
    return { source: 'unavailable', note: l10n.t('The preview could not be rebuilt: {0}', (error as Error).message) };
  }
}
