/**
 * Recording the exact text a model was given as the preview of a retained copy (`extra.preview`),
 * so the inspector can show it instead of rebuilding it, with the facts its caller holds as fields
 * (where the copy's marker sits in it, `extra.previewMarker`; its line counts). Best effort: the
 * tool call has already succeeded and its copy is readable, so a failed annotation must not fail
 * it; but it is not silent either: each failure is handed to `onError` (the caller's log) and
 * returned.
 */
import { describeError } from '../errors';
import type { RecallStore } from '../types';

/** The store's `annotate`, or anything with its shape. */
export type AnnotateFn = RecallStore['annotate'];

/** Told one sentence per copy whose preview could not be recorded. */
export type PreviewErrorFn = (message: string) => void;

/**
 * Annotates each copy in `outputIds` (undefined entries and repeats are skipped) with
 * `{ preview: text }` and what `facts` holds for it, one after another. Never rejects; resolves to
 * the failures' messages.
 */
export async function recordPreview(
  annotate: AnnotateFn | undefined,
  outputIds: readonly (string | undefined)[],
  text: string,
  onError?: PreviewErrorFn,
  facts: Readonly<Record<string, Record<string, unknown>>> = {},
): Promise<string[]> {
  const failures: string[] = [];
  if (!annotate) return failures;
  for (const outputId of new Set(outputIds)) {
    if (!outputId) continue;
    try {
      await annotate(outputId, { ...facts[outputId], preview: text });
    } catch (error) {
      const message = `the preview the model received could not be recorded for ${outputId}: ${describeError(error)}`;
      failures.push(message);
      try {
        onError?.(message);
      } catch {
        // A failing logger must not fail the tool either; the message is still returned.
      }
    }
  }
  return failures;
}

/** The store's annotate, bound, or undefined without a store. */
export const annotateOf = (store: RecallStore | undefined): AnnotateFn | undefined => store && store.annotate.bind(store);
