#!/usr/bin/env node
// Installs (once) the real agent CLIs the client suite drives (test/clients/run.mjs), pinned, from
// the npm registry, into a cache folder rather than node_modules (together about 2.5 GB, mostly the
// native binaries of Claude Code, Codex, Copilot CLI, OpenCode, Kilo Code and Cline):
//   - `@anthropic-ai/claude-code` (its native binary comes in the optional package for the platform);
//   - `@openai/codex` (a JS launcher that starts the platform's binary, also an optional package);
//   - `@google/gemini-cli` and `@qwen-code/qwen-code` (Node bundles);
//   - `@github/copilot` (a JS launcher that starts the platform package's binary, which unpacks its
//     runtime on first start into COPILOT_PKG_CACHE_HOME: done here once, shared by every run);
//   - `opencode-ai` (its postinstall puts the platform package's compiled binary in bin/opencode.exe);
//   - `@kilocode/cli` (a launcher whose postinstall links the platform package's binary as bin/.kilo;
//     the registry has no `@kilocode/cli-linux-x64` of the launcher's version, so the newest one is
//     installed first and the launcher's postinstall finds it);
//   - `cline` (a launcher whose postinstall links the platform package's compiled binary as bin/.cline).
// Like the host harness (scripts/host/setup.mjs): one folder per CLI, a version stamp written last (one
// entry per CLI, so a new pin installs only that CLI), a lock against two installs at once; with a
// valid stamp this is a few file checks. Usable as a CLI (`node scripts/clients/setup.mjs`) or imported
// (`ensureClients()`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanNpmEnv, npmInstallInto, withLock } from '../host/setup.mjs';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
export const GEMINI_CLI_VERSION = '0.61.0';
export const QWEN_CODE_VERSION = '0.24.4';
export const COPILOT_CLI_VERSION = '1.0.102';
export const OPENCODE_VERSION = '1.18.33';
export const KILO_CLI_VERSION = '7.8.1';
/** The platform binary Kilo Code's launcher runs (the newest `@kilocode/cli-linux-x64`): the version `kilo --version` prints. */
export const KILO_BINARY_VERSION = '7.7.9';
export const CLINE_VERSION = '3.0.65';
// Bump LAYOUT when the cache's layout or install steps change, so existing caches get rebuilt.
const LAYOUT = 1;
// stamp.json's keys and the pins they must hold.
const STAMP = {
  layout: LAYOUT,
  claudeCode: CLAUDE_CODE_VERSION,
  codex: CODEX_VERSION,
  geminiCli: GEMINI_CLI_VERSION,
  qwenCode: QWEN_CODE_VERSION,
  copilotCli: COPILOT_CLI_VERSION,
  opencode: OPENCODE_VERSION,
  kiloCode: `${KILO_CLI_VERSION}+${KILO_BINARY_VERSION}`,
  cline: CLINE_VERSION,
};

export const CACHE_DIR = process.env.TOR_CLIENTS_CACHE || path.join(homedir(), '.cache', 'tool-output-recall-clients');

/** Absolute paths of the CLIs' entry points (and their package folders), valid once ensureClients() returned. */
export function clientPaths(cache = CACHE_DIR) {
  const claudeDir = path.join(cache, 'claude-code', 'node_modules', '@anthropic-ai', 'claude-code');
  const codexDir = path.join(cache, 'codex', 'node_modules', '@openai', 'codex');
  return {
    cache,
    claudeDir,
    // The package's bin: the native binary, put in place by its install script from the platform package.
    claude: path.join(claudeDir, 'bin', 'claude.exe'),
    codexDir,
    // Node bundles, run with `node <bin>`.
    gemini: path.join(cache, 'gemini-cli', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'),
    qwen: path.join(cache, 'qwen-code', 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js'),
    qwenDir: path.join(cache, 'qwen-code', 'node_modules', '@qwen-code', 'qwen-code'),
    // The launcher's platform binary, run directly (the launcher only finds and spawns it).
    copilot: path.join(cache, 'copilot-cli', 'node_modules', '@github', `copilot-linux-${process.arch}`, 'copilot'),
    // Where it unpacks its runtime (COPILOT_PKG_CACHE_HOME); the Rust runtime holds its limits.
    copilotPkgCache: path.join(cache, 'copilot-cli', 'pkg-cache'),
    copilotRuntime: path.join(
      cache,
      'copilot-cli',
      'pkg-cache',
      'pkg',
      `linux-${process.arch}`,
      COPILOT_CLI_VERSION,
      'prebuilds',
      `linux-${process.arch}`,
      'runtime.node',
    ),
    // A Node launcher that finds the platform package's binary and runs it.
    codex: path.join(codexDir, 'bin', 'codex.js'),
    // The compiled binary its postinstall put in place.
    opencode: path.join(cache, 'opencode', 'node_modules', 'opencode-ai', 'bin', 'opencode.exe'),
    // Node launchers (run with `node <bin>`) that start the binary their postinstall linked beside them (bin/.kilo, bin/.cline).
    kilo: path.join(cache, 'kilo-code', 'node_modules', '@kilocode', 'cli', 'bin', 'kilo'),
    kiloBinary: path.join(cache, 'kilo-code', 'node_modules', '@kilocode', 'cli', 'bin', '.kilo'),
    cline: path.join(cache, 'cline', 'node_modules', 'cline', 'bin', 'cline'),
    clineBinary: path.join(cache, 'cline', 'node_modules', 'cline', 'bin', '.cline'),
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
export function reportedVersions(p = clientPaths(), only = Object.keys(CLIS)) {
  const run = (file, args, env = {}) => {
    const r = spawnSync(file, args, {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, DISABLE_AUTOUPDATER: '1', ...env },
    });
    return (r.stdout || r.stderr || String(r.error)).trim();
  };
  const versions = {};
  for (const key of only) versions[key] = run(...CLIS[key].version(p));
  return versions;
}

// One entry per CLI: its npm package, pin, folder, the scripts npm may run, the command that prints its
// version (and the version it prints, when not the pin), a package installed before it, and what must
// exist after the install.
const CLIS = {
  claudeCode: {
    name: '@anthropic-ai/claude-code',
    pin: CLAUDE_CODE_VERSION,
    dir: 'claude-code',
    // Claude Code's postinstall copies the platform binary over bin/claude.exe; allow it by name.
    allowScripts: { '@anthropic-ai/claude-code': true },
    bin: (p) => p.claude,
    version: (p) => [p.claude, ['--version']],
  },
  codex: {
    name: '@openai/codex',
    pin: CODEX_VERSION,
    dir: 'codex',
    bin: (p) => p.codex,
    version: (p) => [process.execPath, [p.codex, '--version']],
  },
  geminiCli: {
    name: '@google/gemini-cli',
    pin: GEMINI_CLI_VERSION,
    dir: 'gemini-cli',
    bin: (p) => p.gemini,
    version: (p) => [process.execPath, [p.gemini, '--version'], { GEMINI_CLI_NO_RELAUNCH: 'true' }],
  },
  qwenCode: {
    name: '@qwen-code/qwen-code',
    pin: QWEN_CODE_VERSION,
    dir: 'qwen-code',
    bin: (p) => p.qwen,
    version: (p) => [process.execPath, [p.qwen, '--version']],
  },
  copilotCli: {
    name: '@github/copilot',
    pin: COPILOT_CLI_VERSION,
    dir: 'copilot-cli',
    bin: (p) => p.copilot,
    version: (p) => [p.copilot, ['--version'], { COPILOT_PKG_CACHE_HOME: p.copilotPkgCache, COPILOT_AUTO_UPDATE: 'false' }],
    // The first start unpacks the runtime (~235 MB); do it now, into the shared folder, not in every run's HOME.
    after: (p) => p.copilotRuntime,
  },
  opencode: {
    name: 'opencode-ai',
    pin: OPENCODE_VERSION,
    dir: 'opencode',
    allowScripts: { 'opencode-ai': true },
    bin: (p) => p.opencode,
    version: (p) => [p.opencode, ['--version']],
  },
  kiloCode: {
    name: '@kilocode/cli',
    pin: KILO_CLI_VERSION,
    dir: 'kilo-code',
    // The launcher's own platform package does not exist at its version: the binary comes from this one.
    before: { name: `@kilocode/cli-linux-${process.arch}`, pin: KILO_BINARY_VERSION },
    allowScripts: { '@kilocode/cli': true },
    bin: (p) => p.kilo,
    version: (p) => [process.execPath, [p.kilo, '--version']],
    prints: KILO_BINARY_VERSION,
    after: (p) => p.kiloBinary,
  },
  cline: {
    name: 'cline',
    pin: CLINE_VERSION,
    dir: 'cline',
    allowScripts: { cline: true },
    bin: (p) => p.cline,
    version: (p) => [process.execPath, [p.cline, '--version']],
    after: (p) => p.clineBinary,
  },
};

/** Adds `name@pin` to the install in `dir` (npmInstallInto made it): its scripts run with what is there already. */
function npmAddInto(dir, name, pin, env) {
  const args = ['install', '--prefix', dir, '--save-exact', '--no-audit', '--no-fund', '--loglevel=warn', `${name}@${pin}`];
  const r = spawnSync('npm', args, { env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** The CLIs whose pin the stamp does not hold (or whose entry point is missing). */
function staleClis(p) {
  const s = readStamp(p.cache);
  if (!s || s.layout !== LAYOUT) return Object.keys(CLIS);
  return Object.keys(CLIS).filter(
    (key) => s[key] !== STAMP[key] || !existsSync(CLIS[key].bin(p)) || (CLIS[key].after && !existsSync(CLIS[key].after(p))),
  );
}

/** Makes sure every CLI is installed at its pinned version; returns their paths. Throws with the reason otherwise. */
export function ensureClients({ quiet = false } = {}) {
  const started = Date.now();
  const p = clientPaths();
  if (staleClis(p).length) {
    withLock(p.cache, () => {
      const stale = staleClis(p); // another process may have finished some while we waited
      if (!stale.length) return;
      rmSync(path.join(p.cache, 'stamp.json'), { force: true });
      mkdirSync(p.cache, { recursive: true });
      for (const key of stale) {
        const cli = CLIS[key];
        const dir = path.join(p.cache, cli.dir);
        if (cli.before) {
          npmInstallInto(dir, cli.before.name, cli.before.pin, cleanNpmEnv(), cli.allowScripts);
          npmAddInto(dir, cli.name, cli.pin, cleanNpmEnv());
        } else npmInstallInto(dir, cli.name, cli.pin, cleanNpmEnv(), cli.allowScripts ?? {});
      }
      const versions = reportedVersions(p, stale);
      const wrong = stale.filter((key) => !versions[key].includes(CLIS[key].prints ?? CLIS[key].pin));
      if (wrong.length)
        throw new Error(
          `the installed CLIs report ${JSON.stringify(versions)}, not ${wrong.map((k) => `${CLIS[k].name}@${CLIS[k].pin}`).join(', ')}`,
        );
      const missing = stale.filter((key) => CLIS[key].after && !existsSync(CLIS[key].after(p)));
      if (missing.length) throw new Error(`not in place after the first start: ${missing.map((k) => CLIS[k].after(p)).join(', ')}`);
      writeFileSync(path.join(p.cache, 'stamp.json'), JSON.stringify(STAMP) + '\n');
      log(
        `installed ${stale.map((k) => `${CLIS[k].name}@${CLIS[k].pin}`).join(', ')} into ${p.cache} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });
  } else if (!quiet)
    log(
      `already set up (${p.cache}: ${Object.values(CLIS)
        .map((c) => `${c.name} ${c.pin}`)
        .join(', ')})`,
    );
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
