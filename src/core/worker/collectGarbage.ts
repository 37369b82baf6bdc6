/**
 * A full garbage collection, on request. A checkpoint leaves tens of MiB of dead buffers (the copies
 * it read back from the journal, their deflated chunks, the segments' exported bytes) that V8 would
 * collect only under pressure, so a store worker's memory would stay at its peak; the search worker
 * likewise kept each copy it had searched. Called in our own workers only: on the shared main thread
 * of an extension host a full collection is not ours to start.
 *
 * No V8 flag: V8's flags are process-wide, and in VS Code the process is the extension host every
 * extension shares (with `--expose-gc` set at run time, every context made afterwards, in any
 * extension, had a global gc; issue 30). The collection is asked of this thread's own isolate through
 * the inspector protocol instead (HeapProfiler.collectGarbage, over an in-thread session of
 * node:inspector), which reaches no other thread and changes no setting. V8 runs it as a task of this
 * thread, soon after the call returns. Where Node has no inspector this does nothing: the memory is
 * then collected when V8 decides.
 *
 * That collection (the one DevTools' button runs) costs more than gc() did, and a collection after
 * every search of a small copy cost more than the search: so callers say how much garbage they left,
 * and a collection runs once a thread's garbage reaches GARBAGE_BUDGET_BYTES (a checkpoint counts the
 * copies it read back, the segments it built and the index it exported).
 */
import type { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

/** Garbage a worker thread may hold before it collects (a collection costs tens of ms). */
export const GARBAGE_BUDGET_BYTES = 8 * 1024 * 1024;

/** This thread's session: undefined until first used, null where there is no inspector. */
let session: Session | null | undefined;
/** A collection was asked for and has not run yet: it will find later garbage too. */
let pending = false;
/** Bytes of garbage noted since the last collection. */
let garbage = 0;

/**
 * `bytes`: the garbage the caller just left (buffers it has finished with); the collection waits until
 * the thread's garbage reaches GARBAGE_BUDGET_BYTES.
 */
export function collectGarbageInWorker(bytes: number): void {
  if (isMainThread) return;
  garbage += bytes;
  if (garbage < GARBAGE_BUDGET_BYTES) return;
  garbage = 0;
  if (pending) return;
  const inspector = inspectorSession();
  if (!inspector) return;
  pending = true;
  try {
    inspector.post('HeapProfiler.collectGarbage', () => {
      pending = false;
    });
  } catch {
    pending = false;
  }
}

function inspectorSession(): Session | null {
  if (session !== undefined) return session;
  try {
    // Required here, not imported: node:inspector throws when loaded in a Node built without it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Session } = require('node:inspector') as typeof import('node:inspector');
    const opened = new Session();
    opened.connect();
    session = opened;
  } catch {
    session = null;
  }
  return session;
}
