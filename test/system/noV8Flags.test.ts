// No V8 flag is set at run time (issue 30). V8's flags are process-wide: in VS Code the process is the
// extension host every extension shares, and a flag set there by us changes every extension's V8 (with
// `--expose-gc`, every context made afterwards has a global gc). Our workers still collect their garbage
// (collectGarbage.ts), through the inspector protocol, with no flag.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

const exec = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const SRC = path.join(REPO, 'src');
const TSX = require.resolve('tsx/cjs');

/**
 * Files of src/ allowed to call setFlagsFromString, each with its reason: only code that runs in a
 * process we start ourselves (never in the extension host, nor in a worker of it). None today.
 */
const ALLOWED: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

/** A source without its comments (a comment may tell why there is no flag). */
const code = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('no V8 flags at run time (issue 30)', function () {
  this.timeout(60_000);

  it('no file of src/ calls setFlagsFromString, except those ALLOWED (processes we start)', () => {
    const calls = sourceFiles(SRC)
      .map((file) => path.relative(REPO, file).split(path.sep).join('/'))
      .filter((file) => /\bsetFlagsFromString\b/.test(code(readFileSync(path.join(REPO, file), 'utf8'))));
    assert.deepEqual(
      calls.filter((file) => !Object.hasOwn(ALLOWED, file)),
      [],
      'V8 flags are process-wide: set none at run time in a process we do not own (the extension host)',
    );
  });

  it('collectGarbageInWorker collects in a worker without exposing gc to it or to the process', async () => {
    // In a worker of this (flagless) process: an object only a WeakRef reaches survives a few turns, is
    // gone after collectGarbageInWorker, and neither the worker nor a new context of it has a gc.
    const script = `
      const { parentPort } = require('node:worker_threads');
      const { runInNewContext } = require('node:vm');
      const { collectGarbageInWorker, GARBAGE_BUDGET_BYTES } = require(${JSON.stringify(path.join(SRC, 'core/worker/collectGarbage.ts'))});
      const turn = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
      const ref = new WeakRef({ bytes: new Uint8Array(4 << 20) });
      (async () => {
        await turn();
        await turn();
        const aliveBefore = ref.deref() !== undefined;
        collectGarbageInWorker(GARBAGE_BUDGET_BYTES); // garbage enough for a collection at once
        let waited = 0;
        while (ref.deref() !== undefined && waited < 5000) {
          await turn(10);
          waited += 10;
        }
        parentPort.postMessage({
          aliveBefore,
          collected: ref.deref() === undefined,
          globalGc: typeof globalThis.gc,
          contextGc: runInNewContext('typeof gc'),
        });
      })();
    `;
    const worker = new Worker(script, { eval: true, execArgv: ['--require', TSX] });
    try {
      const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      assert.deepEqual(result, { aliveBefore: true, collected: true, globalGc: 'undefined', contextGc: 'undefined' });
    } finally {
      await worker.terminate();
    }
  });

  it('a process that ran a worker store through retains, a checkpoint and searches has no gc in a new context', async () => {
    // A fresh process started without flags, as an extension host is for us: the store worker and the
    // search worker both collect their garbage, and afterwards no context of the process, nor a new
    // worker, has a gc.
    const script = `
      const fs = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const { runInNewContext } = require('node:vm');
      const { Worker } = require('node:worker_threads');
      const { openWorkerStore } = require(${JSON.stringify(path.join(SRC, 'core/workers/workerClient.ts'))});
      (async () => {
        const before = runInNewContext('typeof gc');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-no-flags-'));
        try {
          const store = await openWorkerStore({ dir, quotaBytes: 16 << 20, copyBytes: 4 << 20 });
          const ids = [];
          for (let i = 0; i < 3; i++) {
            const line = 'line ' + i + ' of a tool output, nothing secret\\n';
            ids.push((await store.retain(line.repeat(Math.ceil((2 << 20) / line.length)), { tool: 'test' })).outputId);
          }
          await store.flush();
          let matches = 0;
          for (const id of ids) matches += (await store.search(id, 'line 1 of')).matches.length;
          await store.read(ids[0], 0);
          await store.close();
          await new Promise((resolve) => setTimeout(resolve, 200));
          const worker = await new Promise((resolve, reject) => {
            const w = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
            w.once('message', (m) => { resolve(m); void w.terminate(); });
            w.once('error', reject);
          });
          process.stdout.write(JSON.stringify({ before, matches: matches > 0, after: runInNewContext('typeof gc'), globalGc: typeof globalThis.gc, worker }));
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      })().catch((error) => { console.error(error); process.exit(1); });
    `;
    const { stdout } = await exec(process.execPath, ['--require', TSX, '-e', script], {
      cwd: REPO,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.deepEqual(JSON.parse(stdout), {
      before: 'undefined',
      matches: true,
      after: 'undefined',
      globalGc: 'undefined',
      worker: 'undefined',
    });
  });
});
