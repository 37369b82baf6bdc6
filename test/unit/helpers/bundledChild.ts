import { chmodSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { useTempDirs } from './tempDirs';

const dirs = useTempDirs('child');

/**
 * Bundles a child script (and the engine it imports) into one file in a fresh temporary folder,
 * with sql-wasm.wasm beside it, and returns the bundle's path: `node <path>` runs it with no
 * `node_modules` and nothing read from the checkout. A child started as another user (root tests
 * run one as `nobody`) could not load `tsx` or the sources from a clone in a folder only its owner
 * can read (a 0700 home, a `mktemp -d` folder).
 */
export function bundleChild(entry: string): string {
  const dir = dirs.make();
  const outfile = path.join(dir, 'child.js');
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error' });
  copyFileSync(createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  chmodSync(dir, 0o755); // mkdtemp makes it 0700: the other user must read the bundle
  return outfile;
}
