import { describeError } from './errors';
import type { RecallStore, RetainMeta, RetainResult } from './types';

/** A copy that was kept, or the reason it could not be: the caller's preview says which. */
export type Retention = { retained: RetainResult; unavailableReason?: undefined } | { retained?: undefined; unavailableReason: string };

/** Why there is no copy when there is no store at all. */
export const NO_STORE_REASON = 'no session store is available';

export interface RetainOptions {
  /** The caller will not read the bytes again (`RecallStore.retain`'s `transfer`). */
  transfer?: boolean;
}

/**
 * Retains without throwing: a failed save must not cost the caller its result, only the way back
 * to the omitted part, and that loss is reported (recovery unavailable, with the reason).
 */
export async function retainOrExplain(
  store: RecallStore | undefined,
  content: string | Uint8Array,
  meta: RetainMeta,
  options: RetainOptions = {},
): Promise<Retention> {
  if (!store) return { unavailableReason: NO_STORE_REASON };
  try {
    return { retained: await store.retain(content, meta, options) };
  } catch (error) {
    return { unavailableReason: describeError(error) };
  }
}
