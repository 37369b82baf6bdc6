/**
 * The worker script both workers run (`workers/entry.ts`: the store worker, or with `workerData.role`
 * "search" the search worker), and the Node options to start it with.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

let defaultPath: string | undefined;

/** `storeWorker.js` beside the bundle (dist/), else `workers/entry.ts` (sources, tsx). */
export function defaultWorkerPath(): string {
  if (defaultPath) return defaultPath;
  const bundled = path.join(__dirname, 'storeWorker.js');
  // From sources, the entry sits in workers/, the room that composes the store and search workers.
  const source = path.join(__dirname, '..', 'workers', 'entry.ts');
  defaultPath = !existsSync(bundled) && existsSync(source) ? source : bundled;
  return defaultPath;
}

/**
 * A `.ts` worker runs under tsx's CommonJS hook (the path is resolved here so it does not depend on
 * the worker's cwd; createRequire keeps bundlers from pulling tsx in). Anything else gets no options,
 * rather than inheriting the parent's (e.g. the extension host's `--inspect`).
 */
export function defaultExecArgv(workerPath: string): string[] {
  if (!/\.[cm]?ts$/.test(workerPath)) return [];
  return ['--require', createRequire(__filename).resolve('tsx/cjs')];
}
