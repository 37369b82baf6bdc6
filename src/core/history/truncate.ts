/**
 * Fitting one tool result into history: retain every text part that must be cut, then replace it
 * with a head+tail preview whose marker names the copy. Nothing is cut before the copy exists, and a
 * failed copy is said in the marker rather than hidden.
 */
import { describeError } from '../errors';
import { previewHeadTail } from '../preview';
import { markerAt } from '../previewFacts';
import { recordPreview, type AnnotateFn, type PreviewErrorFn } from '../tools/recordPreview';
import type { RetainMeta } from '../types';
import { splitTextBudget, toolResultBudgetBytes } from './budget';
import type { ResultPart, RetainedRef, RetainFn } from './types';

export interface FitOptions {
  contextWindowTokens: number;
  /** The history budget in UTF-8 bytes (default: DEFAULT_LIMITS.historyBytes, 32 KiB). */
  historyBytes?: number;
  /** The session store's `retain`. */
  retain: RetainFn;
  /** Recorded with every copy (tool name, title…). */
  meta?: RetainMeta;
  /**
   * The session store's `annotate`: when given, each copy records the preview that replaced its part
   * (`extra.preview`, the exact text the model gets) and where its marker is (`extra.previewMarker`),
   * for the inspector.
   */
  annotate?: AnnotateFn;
  /** Told when a preview could not be recorded; the result is fitted all the same. */
  onPreviewNotRecorded?: PreviewErrorFn;
}

export interface FitCut {
  /** Index of the part in the result. */
  index: number;
  /** UTF-8 bytes of the part before it was cut. */
  totalBytes: number;
  /** The copy's id, or absent when retention failed (then `unavailableReason` says why). */
  outputId?: string;
  unavailableReason?: string;
  /** Whether the preview kept a larger tail because the end looked important. */
  importantTail: boolean;
}

export interface FitResult {
  /** The parts to put in history, in the same order; non-text parts are the same objects. */
  parts: ResultPart[];
  /** One entry per text part that was cut (empty when the result fit). */
  cuts: FitCut[];
}

export async function fitToolResult(parts: readonly ResultPart[], options: FitOptions): Promise<FitResult> {
  const budget = toolResultBudgetBytes(options.contextWindowTokens, options.historyBytes);
  const textIndexes = parts.flatMap((part, i) => (part.kind === 'text' ? [i] : []));
  const sizes = textIndexes.map((i) => Buffer.byteLength((parts[i] as { text: string }).text, 'utf8'));
  const shares = splitTextBudget(sizes, budget);

  const out = parts.slice();
  const cuts: FitCut[] = [];
  // Sequential on purpose: copies land in the store in the order of the parts, and one failing
  // store call does not race others.
  for (let k = 0; k < textIndexes.length; k++) {
    if (shares[k] >= sizes[k]) continue;
    const index = textIndexes[k];
    const text = (parts[index] as { text: string }).text;
    let retained: RetainedRef | undefined;
    let unavailableReason: string | undefined;
    try {
      const copy = await options.retain(text, options.meta ?? {});
      retained = { outputId: copy.outputId, totalBytes: copy.totalBytes, complete: copy.complete };
    } catch (error) {
      unavailableReason = `saving the copy failed: ${describeError(error)}`;
    }
    const preview = previewHeadTail(text, {
      budgetBytes: shares[k],
      kind: 'generic',
      outputId: retained?.outputId,
      copyComplete: retained?.complete,
      unavailableReason,
    });
    if (retained) {
      // The text is the preview alone: its marker sits where the preview put it.
      const previewMarker = markerAt(preview, 0);
      const facts = { [retained.outputId]: { ...(previewMarker && { previewMarker }) } };
      await recordPreview(options.annotate, [retained.outputId], preview.text, options.onPreviewNotRecorded, facts);
    }
    out[index] = retained ? { kind: 'text', text: preview.text, retained } : { kind: 'text', text: preview.text };
    cuts.push({ index, totalBytes: sizes[k], outputId: retained?.outputId, unavailableReason, importantTail: preview.importantTail });
  }
  return { parts: out, cuts };
}
