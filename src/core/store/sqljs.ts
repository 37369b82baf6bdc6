import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/**
 * Loads sql.js once per process. The WASM is read from disk and handed over as bytes, so it works
 * the same from the bundles (dist/sql-wasm.wasm beside them) and from sources (node_modules).
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= (async () => {
    const wasmBinary = await fs.readFile(locateWasm());
    const bytes = wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength);
    return initSqlJs({ wasmBinary: bytes });
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

function locateWasm(): string {
  const besideBundle = path.join(__dirname, 'sql-wasm.wasm');
  if (existsSync(besideBundle)) return besideBundle;
  // From sources (tests, tsx) the WASM is in node_modules; createRequire keeps bundlers out of it.
  return createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm');
}
