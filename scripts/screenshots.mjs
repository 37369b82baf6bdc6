#!/usr/bin/env node
// The documentation's pictures (README.md, docs/), retaken by the real-host suites: runs the tests that take them (English, then
// VS Code in Simplified Chinese for the localized one) and copies the pictures they wrote to
// test/artifacts/host/ into media/screenshots/. A picture that the run did not write anew is an error,
// so an old picture is never passed off as a fresh one.
//
//   node scripts/screenshots.mjs             build, run the tests, copy (npm run screenshots)
//   node scripts/screenshots.mjs --no-run    copy what the last host run wrote (says how old each is)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts', 'host');
const MEDIA = path.join(ROOT, 'media', 'screenshots');

/** Each picture the README and docs/ show, and the host test that takes it (a --grep of its title). */
export const PICTURES = [
  { file: 'inspector-dark.png', grep: 'screenshot in Default Dark Modern' },
  { file: 'inspector-light.png', grep: 'screenshot in Default Light Modern' },
  { file: 'inspector-overview.png', grep: 'the overview marks the notable lines of the whole copy' },
  { file: 'running-command.png', grep: 'shows a running run_command at once' },
  { file: 'session-picker.png', grep: 'the session picker names each session' },
  { file: 'inspector-zh-cn.png', grep: 'localization where it runs', locale: 'zh-cn' },
];

const { values: opts } = parseArgs({ options: { 'no-run': { type: 'boolean' } } });
const started = Date.now();

function run(args) {
  console.log(`[screenshots] node ${args.join(' ')}`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`[screenshots] failed (exit ${result.status ?? result.signal}): ${args.join(' ')}`);
    process.exit(1);
  }
}

if (!opts['no-run']) {
  run(['scripts/build.mjs']);
  const escape = (title) => title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const english = PICTURES.filter((p) => !p.locale);
  run([
    'scripts/host/run.mjs',
    '--extra-extension',
    'test/fixtures/test-model-extension',
    '--grep',
    english.map((p) => escape(p.grep)).join('|'),
  ]);
  for (const locale of new Set(PICTURES.filter((p) => p.locale).map((p) => p.locale))) {
    const pictures = PICTURES.filter((p) => p.locale === locale);
    run(['scripts/host/run.mjs', '--locale', locale, '--grep', pictures.map((p) => escape(p.grep)).join('|')]);
  }
}

mkdirSync(MEDIA, { recursive: true });
let stale = 0;
for (const { file } of PICTURES) {
  const from = path.join(ARTIFACTS, file);
  if (!existsSync(from)) {
    console.error(`[screenshots] missing: ${path.relative(ROOT, from)}`);
    stale++;
    continue;
  }
  const taken = statSync(from).mtimeMs;
  if (!opts['no-run'] && taken < started) {
    console.error(`[screenshots] not retaken by this run: ${path.relative(ROOT, from)}`);
    stale++;
    continue;
  }
  copyFileSync(from, path.join(MEDIA, file));
  const age = Math.round((Date.now() - taken) / 60_000);
  console.log(`[screenshots] ${path.relative(ROOT, path.join(MEDIA, file))} (taken ${age} min ago)`);
}
if (stale > 0) process.exit(1);
