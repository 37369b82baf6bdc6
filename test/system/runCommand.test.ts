import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gapMarker } from '../../src/core/bytes';
import { RecallError } from '../../src/core/errors';
import {
  renderCommandResult,
  runCommand,
  runCommandTool,
  type RenderedCommandResult,
  type RunCommandContext,
  type RunCommandResult,
} from '../../src/core/tools/runCommand';
import { invokeTool } from '../../src/core/tools/registry';
import { resolveSettings } from '../../src/core/settings';
import type { RecallStore, RetainMeta } from '../../src/core/types';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { DEFAULT_LIMITS, KiB, MiB } from '../../src/core/limits';
import { namedReadCall, readThrough, rejectsWith } from '../unit/helpers/assertions';
import { decode } from '../unit/helpers/mixedText';
import { eventually, isRunning } from '../unit/helpers/processes';
import { useTempDirs } from '../unit/helpers/tempDirs';
import { useCommandFixture } from '../unit/helpers/commandFixture';

/** The omitted range a truncated preview names. */
function omittedRange(preview: string): { from: number; to: number; total: number } {
  const match = /bytes \[(\d+), (\d+)\) of (\d+)/.exec(preview);
  assert.ok(match, `no omitted range in the preview: ${preview.slice(0, 300)}`);
  return { from: Number(match[1]), to: Number(match[2]), total: Number(match[3]) };
}

/**
 * Checks that the preview is head + marker + tail of the retained copy, and that the bytes it
 * omitted read back through `read` from the offsets it names: head + omitted + tail == whole copy.
 */
async function assertPreviewMatchesCopy(
  store: SessionStore,
  result: RunCommandResult,
  previewBytes: number,
): Promise<{ head: string; tail: string; omitted: string }> {
  assert.equal(result.recovery, 'retained');
  assert.ok(result.outputId);
  assert.equal(result.previewTruncated, true);
  assert.ok(Buffer.byteLength(result.preview) <= previewBytes, `preview is ${Buffer.byteLength(result.preview)} bytes`);
  const copy = await store.readAll(result.outputId);
  const { from, to, total } = omittedRange(result.preview);
  assert.equal(total, copy.length);
  const call = namedReadCall(result.preview);
  assert.deepEqual(call, { outputId: result.outputId, offset: from });
  const head = decode(copy.subarray(0, from));
  const tail = decode(copy.subarray(to));
  assert.ok(result.preview.startsWith(head), "the preview starts with the copy's [0, from)");
  assert.ok(result.preview.endsWith(tail), "the preview ends with the copy's [to, total)");
  const middle = result.preview.slice(head.length, result.preview.length - tail.length);
  assert.match(
    middle,
    /^\n?\[\.\.\. \d+ bytes omitted: [^\n]*\](\n\[notable lines in the omitted part: [^\n]*:(\n[^\n]+)*\])?\n?$/,
    'between head and tail there is only the marker (and the notable lines it lists)',
  );
  // What the preview omitted, read back page by page from the offset it names, up to `to`.
  let omitted = '';
  let offset = call.offset;
  while (offset < to) {
    const page = await store.read(result.outputId, offset, Math.min(4096, to - offset));
    assert.ok(page.nextOffset > offset && page.nextOffset <= to);
    omitted += page.text;
    offset = page.nextOffset;
  }
  assert.equal(omitted, decode(copy.subarray(from, to)));
  assert.equal(head + omitted + tail, decode(copy), 'head + omitted + tail is the whole copy');
  if (!omitted.includes('\uFFFD')) assert.deepEqual(Buffer.from(head + omitted + tail), copy);
  return { head, tail, omitted };
}

describe('runCommand: capture', function () {
  this.timeout(60_000);
  const fx = useCommandFixture('run');

  it('returns small output whole, with its exit code, and retains nothing', async () => {
    const result = await runCommand({ command: 'echo hello; echo "日本語 😀"; exit 3', cwd: fx.work }, fx.store);
    assert.equal(result.exitCode, 3);
    assert.equal(result.signal, null);
    assert.equal(result.timedOut, false);
    assert.equal(result.cancelled, false);
    assert.equal(result.preview, 'hello\n日本語 😀\n');
    assert.equal(result.previewTruncated, false);
    assert.equal(result.recovery, 'not-needed');
    assert.equal(result.outputId, undefined);
    assert.deepEqual(result.stdout, {
      totalBytes: Buffer.byteLength('hello\n日本語 😀\n'),
      capturedBytes: Buffer.byteLength('hello\n日本語 😀\n'),
      droppedBytes: 0,
      complete: true,
    });
    assert.equal(result.stderr.totalBytes, 0);
    assert.equal(result.cwd, fx.work);
    assert.deepEqual(await fx.store.list(), []);
  });

  it('runs in cwd with env merged over the current environment', async () => {
    const result = await runCommand(
      { command: 'pwd; echo "$RECALL_TEST_VAR"; test -n "$PATH" && echo path-kept', cwd: fx.work, env: { RECALL_TEST_VAR: 'from-env' } },
      fx.store,
    );
    assert.equal(result.preview, `${fx.work}\nfrom-env\npath-kept\n`);
  });

  it('merges stdout and stderr in arrival order, counting each stream separately', async () => {
    const result = await runCommand({ command: 'printf A; sleep 0.2; printf BB >&2; sleep 0.2; printf CCC', cwd: fx.work }, fx.store);
    assert.equal(result.preview, 'ABBCCC');
    assert.equal(result.stdout.totalBytes, 4);
    assert.equal(result.stderr.totalBytes, 2);
    assert.equal(result.merged.totalBytes, 6);
  });

  it('20 MiB of stdout and 1 MiB of stderr: capped copies, exact totals, the last page complete=false', async () => {
    const command = 'yes "stdout line of the big command." | head -c 20971520; yes "stderr line 123" | head -c 1048576 >&2';
    const streamBytes = 512 * KiB;
    const result = await runCommand({ command, cwd: fx.work }, fx.store, { streamBytes });
    assert.equal(result.exitCode, 0);
    assert.deepEqual([result.stdout.totalBytes, result.stderr.totalBytes, result.merged.totalBytes], [20 * MiB, 1 * MiB, 21 * MiB]);
    for (const stream of [result.stdout, result.stderr, result.merged]) {
      assert.equal(stream.complete, false);
      assert.ok(stream.capturedBytes <= streamBytes);
      assert.equal(stream.capturedBytes + stream.droppedBytes, stream.totalBytes);
    }
    await assertPreviewMatchesCopy(fx.store, result, DEFAULT_LIMITS.previewBytes);
    const info = await fx.store.info(result.outputId!);
    assert.equal(info.complete, false);
    assert.equal(info.droppedBytes, result.merged.droppedBytes);
    assert.ok(info.totalBytes <= streamBytes);
    assert.equal(info.tool, 'run_command');
    assert.equal(info.title, command);
    const paged = await readThrough(fx.store, result.outputId!);
    const last = paged.pages[paged.pages.length - 1].page;
    assert.deepEqual([last.hasMore, last.complete], [false, false]);
    assert.ok(paged.text.endsWith('stderr line 123\n'));
    assert.match(result.preview, /The retained copy is itself incomplete/);
    // The capture scanned what it dropped and found nothing notable there; the copy keeps that digest.
    assert.match(result.preview, /bytes dropped at capture \(output lines \d+-\d+, NOT in the copy\) the capture saw no notable lines/);
    assert.deepEqual(info.notable?.counts, { error: 0, summary: 0, warning: 0 });
    const keptTail = info.totalBytes - info.gapOffset! - Buffer.byteLength(gapMarker(info.droppedBytes, result.merged.totalBytes));
    assert.deepEqual(
      [info.notable?.from, info.notable?.to],
      [info.gapOffset, result.merged.totalBytes - keptTail],
      'it covers exactly the dropped bytes',
    );
  });

  it('with the default 8 MiB caps, the 21 MiB output keeps stderr whole and retains an 8 MiB copy', async () => {
    const command = 'yes "stdout line of the big command." | head -c 20971520; yes "stderr line 123" | head -c 1048576 >&2';
    const result = await runCommand({ command, cwd: fx.work }, fx.store);
    assert.equal(result.stdout.totalBytes, 20 * MiB);
    assert.equal(result.stdout.complete, false);
    assert.deepEqual(result.stderr, { totalBytes: MiB, capturedBytes: MiB, droppedBytes: 0, complete: true });
    assert.equal(result.merged.totalBytes, 21 * MiB);
    assert.ok(Buffer.byteLength(result.preview) <= DEFAULT_LIMITS.previewBytes);
    const info = await fx.store.info(result.outputId!);
    assert.ok(info.totalBytes <= 8 * MiB && info.totalBytes > 8 * MiB - 1024);
    const end = await fx.store.read(result.outputId!, info.totalBytes - 16);
    assert.deepEqual(end, {
      text: 'stderr line 123\n',
      nextOffset: info.totalBytes,
      totalBytes: info.totalBytes,
      hasMore: false,
      complete: false,
    });
    await fx.store.remove(result.outputId!);
  });

  it("a summary at the very end of 5,000 lines is in the preview's tail and found by search + read, without running again", async () => {
    const counter = path.join(fx.work, 'runs.txt');
    const command = `echo run >> "${counter}"; seq 1 5000 | sed 's/^/progress line /'; echo TOTAL_SUMMARY=12345`;
    const result = await runCommand({ command, cwd: fx.work }, fx.store);
    const { head, tail, omitted } = await assertPreviewMatchesCopy(fx.store, result, DEFAULT_LIMITS.previewBytes);
    assert.ok(Buffer.byteLength(result.preview) <= 24 * KiB);
    assert.ok(!head.includes('TOTAL_SUMMARY'), 'the summary is not in the head');
    assert.ok(tail.endsWith('TOTAL_SUMMARY=12345\n'), "the summary is in the preview's tail");
    assert.ok(omitted.includes('progress line 2500\n'), 'the middle was omitted');
    assert.ok(!result.preview.includes('progress line 2500\n'));
    // Reachable from the retained copy: search, then read at the match.
    const found = await fx.store.search(result.outputId!, 'TOTAL_SUMMARY=');
    assert.equal(found.matches.length, 1);
    assert.equal(found.matches[0].line, 5001);
    const page = await fx.store.read(result.outputId!, found.matches[0].offset);
    assert.equal(page.text, 'TOTAL_SUMMARY=12345\n');
    assert.equal(page.hasMore, false);
    // The middle too, without running the command again.
    const middle = await fx.store.search(result.outputId!, 'progress line 2500\n');
    assert.ok((await fx.store.read(result.outputId!, middle.matches[0].offset, 100)).text.startsWith('progress line 2500\n'));
    assert.equal(readFileSync(counter, 'utf8'), 'run\n', 'the command ran exactly once');
  });

  it('binary output: the preview still fits previewBytes', async () => {
    const result = await runCommand({ command: 'head -c 20000 /dev/urandom', cwd: fx.work }, fx.store, { previewBytes: 24 * KiB });
    assert.equal(result.stdout.totalBytes, 20000);
    assert.ok(Buffer.byteLength(result.preview) <= 24 * KiB, `preview is ${Buffer.byteLength(result.preview)} bytes`);
    if (result.previewTruncated) await assertPreviewMatchesCopy(fx.store, result, 24 * KiB);
  });

  it('a smaller previewBytes gives a smaller preview', async () => {
    const result = await runCommand({ command: 'seq 1 3000', cwd: fx.work }, fx.store, { previewBytes: 2048 });
    await assertPreviewMatchesCopy(fx.store, result, 2048);
  });

  it('memory stays bounded: ~300 MB of output grows rss by less than caps×3 + 64 MiB', async () => {
    const streamBytes = DEFAULT_LIMITS.streamBytes;
    const before = process.memoryUsage().rss;
    const result = await runCommand(
      { command: 'yes "the quick brown fox jumps over the lazy dog" | head -c 314572800', cwd: fx.work },
      fx.store,
    );
    const after = process.memoryUsage().rss;
    assert.equal(result.stdout.totalBytes, 314_572_800);
    assert.equal(result.stdout.complete, false);
    assert.ok(after - before < streamBytes * 3 + 64 * MiB, `rss grew by ${((after - before) / MiB).toFixed(1)} MiB`);
    await fx.store.remove(result.outputId!);
  });
});

describe('runCommand: stopping and failing', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('run-stop');
  const fx = useCommandFixture('run-stop');

  /** Starts a command that leaves a grandchild and writes its pid; returns the running promise and the pid. */
  async function startTree(options: {
    timeoutMs?: number;
    signal?: AbortSignal;
    ignoreTerm?: boolean;
  }): Promise<{ running: Promise<RenderedCommandResult>; pid: number }> {
    const pidfile = path.join(fx.work, `pid-${Date.now()}-${Math.random()}`);
    const trap = options.ignoreTerm ? `trap '' TERM; ` : '';
    const command = `echo started; sh -c '${trap}sleep 1000 & echo $! > "${pidfile}"; wait'`;
    const running = runCommand({ command, cwd: fx.work, timeoutMs: options.timeoutMs, signal: options.signal }, fx.store);
    assert.ok(await eventually(() => existsSync(pidfile) && readFileSync(pidfile, 'utf8').endsWith('\n')), 'the grandchild started');
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    assert.ok(isRunning(pid));
    return { running, pid };
  }

  it('cancellation through an AbortController kills the whole process tree', async () => {
    const controller = new AbortController();
    const { running, pid } = await startTree({ signal: controller.signal });
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, 'SIGTERM');
    assert.equal(result.preview, 'started\n');
    assert.ok(await eventually(() => !isRunning(pid)), `grandchild ${pid} is still running`);
    // Its whole output was the preview, and it is kept all the same, flagged cancelled; the model's text names no copy.
    assert.ok(result.outputId, 'a cancelled run keeps its copy');
    assert.equal(result.recovery, 'not-needed');
    assert.ok(!result.text.includes(result.outputId), result.text);
    const info = await fx.store.info(result.outputId);
    assert.equal(info.totalBytes, result.merged.totalBytes);
    assert.equal(info.extra?.cancelled, true);
    assert.equal(info.extra?.preview, result.text);
    assert.equal(Buffer.from(await fx.store.readAll(result.outputId)).toString(), 'started\n');
  });

  it('the tree is killed even when it ignores SIGTERM', async () => {
    const controller = new AbortController();
    const { running, pid } = await startTree({ signal: controller.signal, ignoreTerm: true });
    controller.abort();
    const result = await running;
    assert.equal(result.cancelled, true);
    assert.ok(await eventually(() => !isRunning(pid)), `grandchild ${pid} is still running`);
  });

  it('an already-aborted signal runs nothing', async () => {
    const marker = path.join(fx.work, 'should-not-exist');
    const result = await runCommand({ command: `touch "${marker}"`, cwd: fx.work, signal: AbortSignal.abort() }, fx.store);
    assert.equal(result.cancelled, true);
    assert.equal(existsSync(marker), false);
  });

  it('a timeout stops the tree and says timedOut', async () => {
    const { running, pid } = await startTree({ timeoutMs: 300 });
    const result = await running;
    assert.equal(result.timedOut, true);
    assert.equal(result.cancelled, false);
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, 'SIGTERM');
    assert.ok(await eventually(() => !isRunning(pid)), `grandchild ${pid} is still running`);
  });

  it('a process killed with SIGKILL reports the signal and exitCode null', async () => {
    const result = await runCommand({ command: 'echo before; kill -9 $$; echo after', cwd: fx.work }, fx.store);
    assert.equal(result.signal, 'SIGKILL');
    assert.equal(result.exitCode, null);
    assert.equal(result.preview, 'before\n');
  });

  it('rejects an empty command and a bad timeout at the tool edge, a missing cwd when it starts, with INVALID_ARGUMENT', async () => {
    const context = {
      store: async () => fx.store,
      settings: resolveSettings(() => undefined),
      folders: [fx.work],
      signal: new AbortController().signal,
      log: { info() {}, warn() {}, error() {} },
    };
    const refused = async (input: unknown, why: RegExp) => {
      const run = await invokeTool('run_command', input, context);
      assert.equal(run.isError, true, JSON.stringify(input));
      assert.match(run.text, why, JSON.stringify(input));
    };
    for (const command of ['', '   ']) await refused({ command }, /^run_command failed \(INVALID_ARGUMENT\): command must be a non-empty/);
    await refused({}, /^run_command failed \(INVALID_ARGUMENT\): the input needs "command"/);
    for (const timeoutSeconds of [-1, 0, 1.5e9, 'soon'])
      await refused({ command: 'true', timeoutSeconds }, /^run_command failed \(INVALID_ARGUMENT\): the input property "timeoutSeconds" /);
    const missing = await rejectsWith(
      runCommand({ command: 'true', cwd: path.join(fx.work, 'does-not-exist') }, fx.store),
      'INVALID_ARGUMENT',
    );
    assert.match(missing.message, /does-not-exist/);
    writeFileSync(path.join(fx.work, 'a-file'), '');
    await rejectsWith(runCommand({ command: 'true', cwd: path.join(fx.work, 'a-file') }, fx.store), 'INVALID_ARGUMENT');
  });

  it('without a store, large output gives a preview that says the bytes were not retained', async () => {
    const result = await runCommand({ command: 'seq 1 20000', cwd: fx.work }, undefined);
    assert.equal(result.recovery, 'unavailable');
    assert.equal(result.outputId, undefined);
    assert.match(result.recoveryReason!, /no session store/);
    assert.match(result.preview, /NOT retained/);
    assert.ok(Buffer.byteLength(result.preview) <= DEFAULT_LIMITS.previewBytes);
  });

  it('a failed save is reported, not thrown away: recovery unavailable, reason, no outputId, preview kept', async () => {
    const dir = dirs.make();
    const broken = await openStore({ dir });
    const before = await broken.retain('retained before the folder broke');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'x'); // writes now fail with ENOTDIR
    try {
      const result = await runCommand({ command: 'seq 1 20000; echo TOTAL_SUMMARY=1', cwd: fx.work }, broken);
      assert.equal(result.exitCode, 0);
      assert.equal(result.recovery, 'unavailable');
      assert.equal(result.outputId, undefined);
      assert.ok(result.recoveryReason);
      assert.match(result.recoveryReason, /ENOTDIR/);
      assert.equal(result.previewTruncated, true);
      assert.ok(Buffer.byteLength(result.preview) <= DEFAULT_LIMITS.previewBytes);
      assert.match(result.preview, /NOT retained/);
      assert.ok(result.preview.includes('ENOTDIR'), 'the marker gives the reason');
      assert.ok(!result.preview.includes('read_tool_output'), 'the marker offers no read call');
      assert.ok(result.preview.startsWith('1\n2\n3\n'));
      assert.ok(result.preview.endsWith('20000\nTOTAL_SUMMARY=1\n'));
      // The store itself: the failed copy has no ID, retain rejects with STORE_UNAVAILABLE.
      assert.deepEqual(
        (await broken.list()).map((o) => o.outputId),
        [before.outputId],
      );
      await rejectsWith(broken.retain('y'.repeat(50_000)), 'STORE_UNAVAILABLE');
      assert.deepEqual(
        (await broken.list()).map((o) => o.outputId),
        [before.outputId],
      );
    } finally {
      rmSync(dir, { force: true });
      mkdirSync(dir);
      await broken.delete();
    }
  });
});

describe('runCommandTool: the exact text the model got is recorded with the copy', function () {
  this.timeout(60_000);
  const fx = useCommandFixture('run-preview');
  const context = (previewBytes: number, extra: Partial<RunCommandContext> = {}): RunCommandContext => ({
    store: fx.store,
    baseDir: fx.work,
    defaultTimeoutSeconds: 30,
    previewBytes,
    streamBytes: 8 * MiB,
    ...extra,
  });

  /** The recorded preview, compared byte for byte with the text the tool returned. */
  async function assertRecorded(outputId: string | undefined, text: string): Promise<void> {
    assert.ok(outputId, 'the output was retained');
    const recorded = (await fx.store.info(outputId)).extra?.preview;
    assert.equal(typeof recorded, 'string', 'extra.preview is recorded');
    assert.ok(Buffer.from(recorded as string, 'utf8').equals(Buffer.from(text, 'utf8')), 'extra.preview is the result text, byte for byte');
  }

  it('records the whole result text (header, preview with its marker), exactly', async () => {
    const { text, result } = await runCommandTool(
      { command: "seq 1 100000; printf '數據 ✓ done\\n'" },
      context(DEFAULT_LIMITS.previewBytes),
    );
    assert.ok(text.startsWith(`$ seq 1 100000`), 'the header comes first');
    assert.ok(text.includes(result.preview), 'the preview is inside');
    assert.match(text, /\[\.\.\. \d+ bytes omitted: /);
    await assertRecorded(result.outputId, text);
    // The facts recorded at retain time are beside it.
    assert.equal((await fx.store.info(result.outputId!)).extra?.previewBytes, DEFAULT_LIMITS.previewBytes);
  });

  it('records the shrunk text when the token budget made the preview small, and a failure with its stderr section', async () => {
    const { text, result } = await runCommandTool({ command: 'seq 1 50000; echo "fatal: out of cheese" >&2; exit 2' }, context(1500));
    assert.ok(Buffer.byteLength(result.preview) <= 1500);
    assert.match(
      text,
      /\n--- stderr alone \(exit code 2; 21 bytes\) ---\nfatal: out of cheese\n\[end of preview\. outputId "out_[0-9a-f]+": [^\n]*\]$/,
    );
    await assertRecorded(result.outputId, text);
    assert.equal((await fx.store.info(result.outputId!)).extra?.previewBytes, 1500);
  });

  it('records nothing when the output fit (no copy) or there is no store', async () => {
    const small = await runCommandTool({ command: 'echo hi' }, context(DEFAULT_LIMITS.previewBytes));
    assert.equal(small.result.outputId, undefined);
    const before = (await fx.store.stats()).outputs;
    const none = await runCommandTool({ command: 'seq 1 50000' }, context(DEFAULT_LIMITS.previewBytes, { store: undefined }));
    assert.match(none.text, /could not be retained|NOT retained/);
    assert.equal((await fx.store.stats()).outputs, before);
  });

  it('renders each result once: the text returned is the one recorded; again, without the id, only for a copy that could not be kept', async () => {
    const kept = await runCommand({ command: 'seq 1 50000', cwd: fx.work }, fx.store);
    assert.equal(kept.text, renderCommandResult(kept).text);
    await assertRecorded(kept.outputId, kept.text);

    const tried: RetainMeta[] = [];
    const full: RecallStore = Object.create(fx.store) as RecallStore;
    full.retain = (_content, meta) => {
      tried.push(meta!);
      return Promise.reject(new RecallError('STORE_UNAVAILABLE', 'disk full'));
    };
    const refused = await runCommand({ command: 'seq 1 50000', cwd: fx.work }, full);
    // The first text named a copy that was not kept: the result is rendered again without it.
    assert.equal(tried.length, 1);
    const hoped = tried[0].outputId!;
    assert.match(hoped, /^out_/);
    assert.ok(String(tried[0].extra?.preview).includes(`"${hoped}"`), 'the first text named the copy it hoped for');
    assert.deepEqual([refused.outputId, refused.recovery], [undefined, 'unavailable']);
    assert.equal(refused.text, renderCommandResult(refused).text);
    assert.ok(!refused.text.includes(hoped));
  });

  it('records the text with the copy, never through annotate; a copy that cannot be kept is said so and records nothing', async () => {
    const noAnnotate: RecallStore = Object.create(fx.store) as RecallStore;
    noAnnotate.annotate = () => Promise.reject(new RecallError('STORE_UNAVAILABLE', 'annotate was called'));
    const { text, result } = await runCommandTool({ command: 'seq 1 50000' }, context(DEFAULT_LIMITS.previewBytes, { store: noAnnotate }));
    assert.match(
      text,
      /\n50000\n\[end of preview\. outputId "out_[0-9a-f]+": [^\n]*\]$/,
      'the whole result, its tail and last line included',
    );
    await assertRecorded(result.outputId, text);

    const full: RecallStore = Object.create(fx.store) as RecallStore;
    full.retain = () => Promise.reject(new RecallError('STORE_UNAVAILABLE', 'The journal could not be written (ENOSPC: disk full).'));
    const refused = await runCommandTool({ command: 'seq 1 50000' }, context(DEFAULT_LIMITS.previewBytes, { store: full }));
    assert.equal(refused.result.outputId, undefined);
    assert.equal(refused.result.recovery, 'unavailable');
    assert.match(refused.text, /could not be retained \(STORE_UNAVAILABLE: The journal could not be written \(ENOSPC: disk full\)\.\)/);
    assert.doesNotMatch(refused.text, /out_[0-9a-f]{24}/, 'the id made for the copy is not named');
  });
});
