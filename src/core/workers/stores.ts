/**
 * The session store composed with what it uses of the rooms above it, which it does not import: the
 * line count a capture makes too (LineTally) and the search engine. The store worker (entry.ts),
 * the read-only view's openers and dist/core.js's `openStore` take them from here.
 */
import { notableMarks } from '../notable/marks';
import { LineTally } from '../previewSource';
import { compileSearch, searchBytes } from '../search';
import type { CopyEngines } from '../store/rowReads';
import { openSessionStore, type SessionStore } from '../store/sessionStore';
import type { OpenStoreOptions } from '../store/storeOptions';

export const STORE_ENGINES: CopyEngines = {
  countLines: (bytes) => new LineTally().write(bytes).facts(),
  searchFor: (outputId, pattern, options) => {
    const compiled = compileSearch(outputId, pattern, options);
    return (bytes) => searchBytes(bytes, compiled);
  },
  notableMarks: (bytes) => notableMarks(bytes),
};

/** A session store on this thread (as the store worker runs each of its own). */
export function openStore(options: OpenStoreOptions): Promise<SessionStore> {
  return openSessionStore(options, STORE_ENGINES);
}
