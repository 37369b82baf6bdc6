#!/usr/bin/env node
// Installs (once) the real agent CLIs the client suite drives (test/clients/run.mjs), pinned, from
// the npm registry, into a cache folder rather than node_modules (together about 400 MB, mostly
// Claude Code's native binary):
//   - `@anthropic-ai/claude-code` (its native binary comes in the optional package for the platform);
//   - `@openai/codex` (a JS launcher that starts the platform's binary, also an optional package).
// Like the host harness (scripts/host/setup.mjs): one folder per CLI, a version stamp written last, a
// lock against two installs at once; with a valid stamp this is a few file checks. Usable as a CLI
// (`node scripts/clients/setup.mjs`) or imported (`ensureClients()`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanNpmEnv, npmInstallInto, withLock } from '../host/setup.mjs';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
// Bump LAYOUT when the cache's layout or install steps change, so existing caches get rebuilt.
const LAYOUT = 1;
const STAMP = { layout: LAYOUT, claudeCode: CLAUDE_CODE_VERSION, codex: CODEX_VERSION };

export const CACHE_DIR = process.env.TOR_CLIENTS_CACHE || path.join(homedir(), '.cache', 'tool-output-recall-clients');

/** Absolute paths of the two CLIs' entry points (and their package folders), valid once ensureClients() returned. */
export function clientPaths(cache = CACHE_DIR) {
  const claudeDir = path.join(cache, 'claude-code', 'node_modules', '@anthropic-ai', 'claude-code');
  const codexDir = path.join(cache, 'codex', 'node_modules', '@openai', 'codex');
  return {
    cache,
    claudeDir,
    // The package's bin: the native binary, put in place by its install script from the platform package.
    claude: path.join(claudeDir, 'bin', 'claude.exe'),
    codexDir,
    // A Node launcher that finds the platform package's binary and runs it.
    codex: path.join(codexDir, 'bin', 'codex.js'),
    // The binary it runs on Linux x64 (the suite greps it for the limits it reports).
    codexNative: path.join(
      cache,
      'codex',
      'node_modules',
      '@openai',
      'codex-linux-x64',
      'vendor',
      'x86_64-unknown-linux-musl',
      'bin',
      'codex',
    ),
  };
}

const log = (msg) => process.stderr.write(`[clients-setup] ${msg}\n`);

function readStamp(cache) {
  try {
    return JSON.parse(readFileSync(path.join(cache, 'stamp.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The installed version each CLI reports, or the reason it cannot say. */
export function reportedVersions(p = clientPaths()) {
  const run = (file, args) => {
    const r = spawnSync(file, args, { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
    return (r.stdout || r.stderr || String(r.error)).trim();
  };
  return { claude: run(p.claude, ['--version']), codex: run(process.execPath, [p.codex, '--version']) };
}

function stampValid(p) {
  const s = readStamp(p.cache);
  return (
    !!s &&
    s.layout === STAMP.layout &&
    s.claudeCode === STAMP.claudeCode &&
    s.codex === STAMP.codex &&
    [p.claude, p.codex].every(existsSync)
  );
}

/** Makes sure both CLIs are installed at the pinned versions; returns their paths. Throws with the reason otherwise. */
export function ensureClients({ quiet = false } = {}) {
  const started = Date.now();
  const p = clientPaths();
  if (!stampValid(p)) {
    withLock(p.cache, () => {
      if (stampValid(p)) return; // another process finished the install while we waited
      rmSync(path.join(p.cache, 'stamp.json'), { force: true });
      mkdirSync(p.cache, { recursive: true });
      // Claude Code's postinstall copies the platform binary over bin/claude.exe; allow it by name.
      npmInstallInto(path.join(p.cache, 'claude-code'), '@anthropic-ai/claude-code', CLAUDE_CODE_VERSION, cleanNpmEnv(), {
        '@anthropic-ai/claude-code': true,
      });
      npmInstallInto(path.join(p.cache, 'codex'), '@openai/codex', CODEX_VERSION, cleanNpmEnv());
      const versions = reportedVersions(p);
      if (!versions.claude.includes(CLAUDE_CODE_VERSION) || !versions.codex.includes(CODEX_VERSION)) {
        throw new Error(`the installed CLIs report ${JSON.stringify(versions)}, not ${CLAUDE_CODE_VERSION} and ${CODEX_VERSION}`);
      }
      writeFileSync(path.join(p.cache, 'stamp.json'), JSON.stringify(STAMP) + '\n');
      log(
        `installed @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}, @openai/codex@${CODEX_VERSION} into ${p.cache} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });
  } else if (!quiet) log(`already set up (${p.cache}: claude-code ${CLAUDE_CODE_VERSION}, codex ${CODEX_VERSION})`);
  return p;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureClients();
  } catch (e) {
    log(`FAILED: ${e.message}`);
    process.exit(1);
  }
}
