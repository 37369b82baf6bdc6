// Bundles the extension (node, cjs, `vscode` external), the engine as a standalone CommonJS library
// (dist/core.js, usable in plain Node), the MCP server (dist/mcp.js) and the inspector webview
// (browser). Copies sql.js's WASM next to the bundles because sql.js loads it from disk at run time.
//
//   node scripts/build.mjs [--production] [--watch] [--tests]
// --watch rebuilds on every change (the F5 pre-launch task in .vscode/tasks.json); --tests also
// bundles the integration suites into dist/test/integration and writes the test workspace under
// .vscode-test/, which the "Extension Tests" launch configuration opens.
import { context } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

/**
 * dist/handshake.json, what dist/mcp.js answers the handshake with before the server loads: written
 * by the server bundle itself (`handshakeData`), in a fresh process, after each build of it.
 */
function handshakeFile() {
  return {
    name: 'handshake-file',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        const script = `require('node:fs').writeFileSync('dist/handshake.json', JSON.stringify(require('./dist/mcpServer.js').handshakeData()) + '\\n')`;
        execFileSync(process.execPath, ['-e', script], { cwd: root, stdio: 'inherit' });
      });
    },
  };
}

const nodeBundles = [
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { entryPoints: ['src/core/index.ts'], outfile: 'dist/core.js' },
  { entryPoints: ['src/core/workers/entry.ts'], outfile: 'dist/storeWorker.js', optional: true },
  // The MCP server (the package's bin): runs with plain `node`, beside storeWorker.js and sql-wasm.wasm.
  // mcp.js is the small entry that answers the handshake; mcpServer.js the server it loads (in a child process over stdio).
  { entryPoints: ['src/mcp/main.ts'], outfile: 'dist/mcp.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/mcp/serverEntry.ts'], outfile: 'dist/mcpServer.js', plugins: [handshakeFile()] },
];

const configs = [
  ...nodeBundles
    .filter((b) => !b.optional || existsSync(path.join(root, b.entryPoints[0])))
    .map(({ optional, plugins = [], ...options }) => ({
      ...common,
      ...options,
      plugins,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
    })),
  ...(existsSync(path.join(root, 'webview/main.ts'))
    ? [
        {
          ...common,
          entryPoints: ['webview/main.ts'],
          outfile: 'dist/webview/inspector.js',
          platform: 'browser',
          format: 'iife',
          target: 'chrome120',
        },
      ]
    : []),
];

await mkdir(path.join(root, 'dist'), { recursive: true });
await copyFile(path.join(root, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(root, 'dist/sql-wasm.wasm'));
if (tests) {
  const { buildTests, writeTestWorkspace } = await import('./host/common.mjs');
  await buildTests();
  writeTestWorkspace(path.join(root, '.vscode-test', 'workspace'));
}
// VS Code's background task (.vscode/tasks.json) knows a rebuild by these two lines.
const watchReport = {
  name: 'watch-report',
  setup(build) {
    build.onStart(() => console.log(`[watch] build started (${build.initialOptions.outfile})`));
    build.onEnd((result) => console.log(`[watch] build finished with ${result.errors.length} error(s)`));
  },
};
const contexts = await Promise.all(
  configs.map((config) => context(watch ? { ...config, plugins: [...(config.plugins ?? []), watchReport] } : config)),
);
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
