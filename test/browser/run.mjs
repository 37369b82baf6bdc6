#!/usr/bin/env node
// Browser tests of the inspector webview, in Debian's headless Chromium driven by playwright-core.
// Builds the webview bundle exactly as scripts/build.mjs does (into .cache/, so a parallel build of
// dist/ is never disturbed), then runs test/browser/*.test.ts in this process through tsx.
//
//   node test/browser/run.mjs [--grep <text>]
//
// Prints `N passed, N failed, N skipped` last; writes {passed, failed, failures} to $TOR_RESULTS_FILE when set; exits
// non-zero on any failure. Screenshots go to test/artifacts/.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const bundleDir = path.join(root, '.cache', 'browser-test', 'webview');
const artifactsDir = path.join(root, 'test', 'artifacts');
const { values: opts } = parseArgs({ options: { grep: { type: 'string' } } });

function finish(passed, failed, failures = []) {
  // This harness has no way to skip a test, so skipped is always 0.
  process.stdout.write(`${passed} passed, ${failed} failed, 0 skipped\n`);
  if (process.env.TOR_RESULTS_FILE) writeFileSync(process.env.TOR_RESULTS_FILE, JSON.stringify({ passed, failed, skipped: 0, failures }));
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

// Debian's Chromium (never a browser download): installed here when this suite runs on its own on a
// fresh machine (as root, as CI does); `npm test` usually has it from the host suite's setup already.
if (!existsSync('/usr/bin/chromium') && process.getuid?.() === 0) {
  process.stdout.write('[browser] installing Debian chromium (apt-get)\n');
  // Waits for dpkg's lock, held by another apt-get on a busy machine (scripts/host/setup.mjs).
  const apt = (args) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=900', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', 'chromium']);
}
if (!existsSync('/usr/bin/chromium')) {
  process.stdout.write('[browser] /usr/bin/chromium is missing: apt-get update && apt-get install -y chromium\n');
  finish(0, 1);
}

mkdirSync(bundleDir, { recursive: true });
mkdirSync(artifactsDir, { recursive: true });
// Same options as scripts/build.mjs's webview bundle.
await build({
  bundle: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: root,
  entryPoints: ['webview/main.ts'],
  outfile: path.join(bundleDir, 'inspector.js'),
  platform: 'browser',
  format: 'iife',
  target: 'chrome120',
});

const { register } = await import('tsx/cjs/api');
register();
const require = createRequire(import.meta.url);
const { runAll } = require('./harness.ts');
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.ts'))
  .sort()
  .map((f) => path.join(here, f));
try {
  const { passed, failed, failures } = await runAll(files, { bundleDir, artifactsDir, grep: opts.grep });
  finish(passed, failed, failures);
} catch (error) {
  process.stdout.write(`[browser] the run broke: ${error?.stack ?? error}\n`);
  finish(0, 1, [`the run broke: ${error?.message ?? error}`]);
}
