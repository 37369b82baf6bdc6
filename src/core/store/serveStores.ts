/**
 * The store worker's side: it runs session stores (sql.js, synchronous) so the caller's thread never
 * waits on the database, serving the store's operation table (storeOps.ts) through worker/serve.ts.
 * The script that calls it is workers/entry.ts.
 *
 * The store worker holds any number of stores, each under a handle, and answers every request with
 * exactly one reply. Requests run concurrently once started, as they would on a `SessionStore` shared
 * by several callers; the store itself orders its writes.
 */
import type { MessagePort } from 'node:worker_threads';
import { RecallError } from '../errors';
import { serveOps } from '../worker/serve';
import type { CopyEngines } from './rowReads';
import type { SessionStore } from './sessionStore';
import { storeRun, type OpenedStore, type StoreDesk, type StoreHandle } from './storeOps';

type Port = Pick<MessagePort, 'on' | 'postMessage'>;

/** Serves store requests arriving on `port` (the worker's `parentPort`); its stores use `engines`. */
export function serveStores(port: Port, engines: CopyEngines): void {
  const stores = new Map<StoreHandle, SessionStore>();
  let nextHandle = 1;

  const deskFor = (handle: StoreHandle | undefined): StoreDesk => ({
    engines,
    store: () => {
      const store = handle === undefined ? undefined : stores.get(handle);
      if (!store)
        throw new RecallError('STORE_CLOSED', 'This session store is closed; its outputs can no longer be read. Use the current session.');
      return store;
    },
    register: (store): OpenedStore => {
      const given = nextHandle++;
      stores.set(given, store);
      const { sessionId, file, openReport, resumed, copyBytes, quotaBytes, journalLimitBytes } = store;
      return { handle: given, sessionId, file, openReport, resumed, copyBytes, quotaBytes, journalLimitBytes };
    },
    release: () => {
      const store = handle === undefined ? undefined : stores.get(handle);
      if (handle !== undefined) stores.delete(handle);
      return store;
    },
  });

  serveOps(port, 'store worker', (op) => {
    const served = storeRun(op);
    return served && { now: served.now, run: (request) => served.run(deskFor(request.handle), request.args) };
  });
}
