// Bundles the extension (node, cjs, `vscode` external), the engine as a standalone CommonJS library
// (dist/core.js, usable in plain Node), and the inspector webview (browser). Copies sql.js's WASM
// next to the bundles because sql.js loads it from disk at run time.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const production = process.argv.includes('--production');
const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

const nodeBundles = [
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { entryPoints: ['src/core/index.ts'], outfile: 'dist/core.js' },
  { entryPoints: ['src/core/store/worker.ts'], outfile: 'dist/storeWorker.js', optional: true },
];

await mkdir(path.join(root, 'dist'), { recursive: true });
await Promise.all([
  ...nodeBundles
    .filter((b) => !b.optional || existsSync(path.join(root, b.entryPoints[0])))
    .map(({ optional, ...options }) => build({ ...common, ...options, platform: 'node', format: 'cjs', target: 'node20' })),
  existsSync(path.join(root, 'webview/main.ts'))
    ? build({
        ...common,
        entryPoints: ['webview/main.ts'],
        outfile: 'dist/webview/inspector.js',
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
      })
    : Promise.resolve(),
  copyFile(path.join(root, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(root, 'dist/sql-wasm.wasm')),
]);
