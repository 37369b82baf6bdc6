/**
 * The script both workers run, bundled as `dist/storeWorker.js` (worker/script.ts finds it). By
 * default it is the store worker (store/serveStores.ts); started with `workerData.role` "search", it
 * is the search worker (search/service.ts), handed the file scanner from files/ and the sessions
 * scanner (sessionScan.ts, read-only views of the store); the store is handed
 * its engines (stores.ts). Composed here, above all three, so that the store imports neither the
 * search service's worker side nor files, and search imports nothing of the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scanFile } from '../files/fileSearch';
import { serveSearches } from '../search/service';
import { serveStores } from '../store/serveStores';
import { scanSessions } from './sessionScan';
import { STORE_ENGINES } from './stores';

if (parentPort) {
  if ((workerData as { role?: string } | null)?.role === 'search') serveSearches(parentPort, scanFile, scanSessions);
  else serveStores(parentPort, STORE_ENGINES);
}
