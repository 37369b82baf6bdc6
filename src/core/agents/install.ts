/**
 * A stable copy of the MCP server for agents outside VS Code. The extension's own folder goes away
 * when it updates, so agents start a launcher at a fixed path in a per-user folder that outlives
 * updates, which runs the build installed beside it:
 *
 *   <root>/tool-output-recall-mcp.js           the launcher agents' configurations name
 *   <root>/tool-output-recall-mcp.json         what it runs, as data: {"build": "<version>-<hash>"}
 *   <root>/<version>-<hash>/mcp.js              one build: the entry, the server it loads
 *   <root>/<version>-<hash>/mcpServer.js        (and the handshake it answers first),
 *   <root>/<version>-<hash>/handshake.json      and what the server loads at run time
 *   <root>/<version>-<hash>/storeWorker.js      (the store and search workers)
 *   <root>/<version>-<hash>/sql-wasm.wasm       (sql.js)
 *
 * A build's folder is written whole under a temporary name and renamed into place, and the
 * launcher is rewritten atomically to point at it, so a starting agent sees the old build or the
 * new one. Which build that is, is recorded beside it (LAUNCHER_RECORD) rather than read back out of
 * the launcher; the record counts only while the launcher is the one it describes. Older builds are
 * kept for servers still running them (the search worker starts late).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { RecallError, describeError } from '../errors';
import { atomicWriteFile } from '../store/atomicWrite';

/** What the server needs at run time, beside it (see scripts/build.mjs and the VSIX allowlist). */
export const SERVER_FILES = ['mcp.js', 'mcpServer.js', 'handshake.json', 'storeWorker.js', 'sql-wasm.wasm'] as const;
export const LAUNCHER = 'tool-output-recall-mcp.js';
/** Beside the launcher: the build it runs, as JSON ({@link LauncherRecord}). */
export const LAUNCHER_RECORD = 'tool-output-recall-mcp.json';
/** Builds kept besides the current one, newest first, for servers started from them that still run. */
const KEEP_OLDER = 2;

export interface ServerBuild {
  /** `<version>-<first 12 hex digits of the SHA-256 of the files>`. */
  build: string;
  /** The launcher's path (stable). */
  launcher: string;
  /** The build's folder. */
  dir: string;
}

export interface Installed extends ServerBuild {
  /** Whether this call copied the build (false: it was installed already). */
  copied: boolean;
  /** Whether the launcher was rewritten to point at this build. */
  relinked: boolean;
  /** Older builds removed. */
  removed: string[];
}

/** What LAUNCHER_RECORD holds. */
interface LauncherRecord {
  build: string;
}

const recordText = (build: string): string => `${JSON.stringify({ build } satisfies LauncherRecord)}\n`;

const launcherText = (build: string): string =>
  [
    '#!/usr/bin/env node',
    '// Written by Tool Output Recall (the "Connect Other Agents…" command): the stable path agents start.',
    '// It runs the server build beside it; a newer version of the extension installs its build and rewrites the line below.',
    `require('./${build}/mcp.js');`,
    '',
  ].join('\n');

/** The build `source` (a folder holding SERVER_FILES) would install under `root`, without writing. */
export async function serverBuild(source: string, root: string, version: string): Promise<ServerBuild> {
  const hash = createHash('sha256');
  for (const name of SERVER_FILES) {
    const bytes = await fs.readFile(path.join(source, name)).catch((error: unknown) => {
      throw new RecallError(
        'STORE_UNAVAILABLE',
        `The MCP server's ${name} is missing from ${source} (${describeError(error)}); rebuild or reinstall the extension.`,
      );
    });
    hash.update(name).update(bytes);
  }
  const build = `${version}-${hash.digest('hex').slice(0, 12)}`;
  return { build, launcher: path.join(root, LAUNCHER), dir: path.join(root, build) };
}

/**
 * The build the launcher under `root` runs, as its record says; undefined when there is no launcher
 * (never installed), or no record that describes it: one an earlier release installed (it wrote no
 * record), or one another release rewrote since. Unknown means "install again", which installServer does.
 */
export async function installedBuild(root: string): Promise<string | undefined> {
  const build = await readRecord(root);
  if (build === undefined) return undefined;
  const launcher = await fs.readFile(path.join(root, LAUNCHER), 'utf8').catch(() => undefined);
  return launcher === launcherText(build) ? build : undefined;
}

async function readRecord(root: string): Promise<string | undefined> {
  const text = await fs.readFile(path.join(root, LAUNCHER_RECORD), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as Partial<LauncherRecord> | null;
    return typeof record?.build === 'string' ? record.build : undefined;
  } catch {
    return undefined;
  }
}

/** Installs the build of `source` under `root` (if needed) and points the launcher at it. */
export async function installServer(source: string, root: string, version: string): Promise<Installed> {
  const planned = await serverBuild(source, root, version);
  await fs.mkdir(root, { recursive: true });
  let copied = false;
  if (!(await isWhole(planned.dir))) {
    const temp = path.join(root, `.${planned.build}.${process.pid}.${Date.now()}.tmp`);
    await fs.mkdir(temp);
    try {
      for (const name of SERVER_FILES) await fs.copyFile(path.join(source, name), path.join(temp, name));
      await fs.rm(planned.dir, { recursive: true, force: true });
      await fs.rename(temp, planned.dir);
      copied = true;
    } catch (error) {
      await fs.rm(temp, { recursive: true, force: true });
      // Another window installed the same build meanwhile: that one stands.
      if (!(await isWhole(planned.dir))) throw error;
    }
  }
  // The record first: between the two writes it names the new build beside a launcher that runs the
  // old one, which installedBuild takes for unknown (never for the wrong build) until the launcher follows.
  const relinked = (await installedBuild(root)) !== planned.build;
  if (relinked) {
    await atomicWriteFile(path.join(root, LAUNCHER_RECORD), Buffer.from(recordText(planned.build)));
    await atomicWriteFile(planned.launcher, Buffer.from(launcherText(planned.build)));
    await fs.chmod(planned.launcher, 0o755);
  }
  return { ...planned, copied, relinked, removed: await removeOldBuilds(root, planned.build) };
}

async function isWhole(dir: string): Promise<boolean> {
  for (const name of SERVER_FILES) if (!(await fs.stat(path.join(dir, name)).catch(() => undefined))?.isFile()) return false;
  return true;
}

/** Keeps the current build and the KEEP_OLDER most recent others; removes the rest and stale temporaries. */
async function removeOldBuilds(root: string, current: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true });
  const builds: { name: string; at: number }[] = [];
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === current) continue;
    const full = path.join(root, entry.name);
    const at = (await fs.stat(full).catch(() => undefined))?.mtimeMs ?? 0;
    // A temporary folder an interrupted install left (an hour is far longer than any copy takes).
    if (entry.name.startsWith('.') && entry.name.endsWith('.tmp')) {
      if (Date.now() - at > 3_600_000) {
        await fs.rm(full, { recursive: true, force: true });
        removed.push(entry.name);
      }
      continue;
    }
    builds.push({ name: entry.name, at });
  }
  builds.sort((a, b) => b.at - a.at);
  for (const old of builds.slice(KEEP_OLDER)) {
    await fs.rm(path.join(root, old.name), { recursive: true, force: true });
    removed.push(old.name);
  }
  return removed;
}
