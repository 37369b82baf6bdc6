/**
 * What the inspector shows about one output besides its pages: the run_command facts from `extra`
 * (free-form JSON, so every field is checked) and the preview the model received, with its
 * omission marker located exactly. vscode-free: the browser tests run it in plain Node.
 */
import * as l10n from '@vscode/l10n';
import { previewHeadTail } from '../../core/preview';
import { decodeUtf8 } from '../../core/utf8';
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

const MARKER = /^\[\.\.\. (\d+) bytes omitted: bytes \[(\d+), (\d+)\) of (\d+),[^\n]*\]$/gm;

/**
 * Finds the omission marker in a preview text, or in a whole tool result that holds the preview
 * after header lines (run_command's status and sizes, run_code's sections). Command output can
 * itself contain lines that look like a marker (an agent's log of another agent), so the real one
 * is a candidate whose numbers match the copy and that names the copy: its read call is
 * `{"outputId":"<this copy>","offset":<from>}`, an id the output cannot have known. A marker that
 * names no copy (a preview whose copy could not be saved) is recognised by its position instead:
 * when the text is the preview alone, the head before it is exactly the copy's first `from` bytes,
 * plus at most one newline the preview adds. Failing both, the first candidate with matching numbers.
 */
export function locateMarker(text: string, totalBytes: number, outputId?: string): Pick<PreviewView, 'marker' | 'omitted'> {
  const candidates: { found: Required<Pick<PreviewView, 'marker' | 'omitted'>>; names: boolean; placed: boolean }[] = [];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m; m = MARKER.exec(text)) {
    const [, bytes, from, to, total] = m.map(Number);
    if (to - from !== bytes || total !== totalBytes || !(from <= to)) continue;
    const headBytes = Buffer.byteLength(text.slice(0, m.index), 'utf8');
    candidates.push({
      found: { marker: { start: m.index, end: m.index + m[0].length }, omitted: { from, to } },
      names: outputId !== undefined && m[0].includes(JSON.stringify({ outputId, offset: from })),
      placed: headBytes === from || headBytes === from + 1,
    });
  }
  return (candidates.find((c) => c.names) ?? candidates.find((c) => c.placed) ?? candidates[0])?.found ?? {};
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
    return { text: extra.preview, source: 'recorded', ...locateMarker(extra.preview, info.totalBytes, info.outputId) };
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
    if (preview.omitted) {
      // The head is the copy's first `from` bytes, then one newline unless it ended with one.
      const head = decodeUtf8(bytes.subarray(0, preview.omitted.from));
      const start = head.length + (head.length === 0 || head.endsWith('\n') ? 0 : 1);
      const end = preview.text.indexOf('\n', start);
      view.marker = { start, end: end < 0 ? preview.text.length : end };
      view.omitted = { from: preview.omitted.from, to: preview.omitted.to };
    }
    return view;
  } catch (error) {
    return { source: 'unavailable', note: l10n.t('The preview could not be rebuilt: {0}', (error as Error).message) };
  }
}
