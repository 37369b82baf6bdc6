/**
 * A full garbage collection, on request. A checkpoint leaves tens of MiB of dead buffers (the copies
 * it read back from the journal, their deflated chunks, the segments' exported bytes) that V8 would
 * collect only under pressure, so a store worker's memory would stay at its peak; the search worker
 * likewise kept each copy it had searched. Called in our own workers only: on the shared main thread
 * of an extension host a full collection is not ours to start.
 */
import { isMainThread } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

export function collectGarbageInWorker(): void {
  if (isMainThread) return;
  if (!gc) {
    // The one way to reach V8's gc() without the process's command line: exposed to contexts made after this.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
