// Failing checkpoints in a real host, made to fail for real: the session file's path becomes a
// folder, so the store worker's checkpoint (an atomic rename over that path) fails with EISDIR while
// journal appends go on. Checked: the API's stats, the extension's log, the status bar's view of
// those very stats (no VS Code API reads another item of the status bar, so the item itself cannot
// be read back), the journal limit setting refusing outputs, and everything clearing once the path
// is repaired.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionStats, ToolOutputRecallApi } from '../../src/extension/api';
import { sessionStatusView } from '../../src/extension/statusBar';
import { recallApi, waitFor } from './helpers/host';
import { sizeText } from '../../src/extension/sizes';

const KiB = 1024;
const LIMIT = 512 * KiB;
const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

/** The session file, found by its lock under the runner's scratch folder. */
function sessionFileOf(sessionId: string): string {
  const root = process.env.TOR_TEST_SCRATCH;
  assert.ok(root, 'TOR_TEST_SCRATCH is not set (run through scripts/host/run.mjs)');
  const lock = (fs.readdirSync(root, { recursive: true }) as string[]).find((f) => path.basename(f) === `${sessionId}.sqlite.lock`);
  assert.ok(lock, `no lock of ${sessionId} under ${root}`);
  return path.join(root, lock.slice(0, -'.lock'.length));
}

/** The extension's log as written so far (the host writes it asynchronously). */
function extensionLog(): string {
  const root = process.env.TOR_TEST_SCRATCH!;
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('Tool Output Recall.log'))
    .map((f) => fs.readFileSync(path.join(root, f), 'utf8'))
    .join('\n');
}

/**
 * How long the log file may trail what was logged: VS Code writes an extension's log file in batches,
 * and in code-server the lines reached the file more than 10 s after they were logged (seen alone, at
 * load ~10; the stats and the status bar, checked first, had the failure at once).
 */
const LOG_FILE_MS = 60_000;

describe('failing checkpoints', function () {
  // Two waits for the log file below (LOG_FILE_MS) and a few checkpoints.
  this.timeout(180_000);
  let api: ToolOutputRecallApi;
  let file: string | undefined;
  const settings = () => vscode.workspace.getConfiguration('toolOutputRecall');

  before(async () => {
    api = await recallApi();
  });
  after(async () => {
    if (file && fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) fs.rmSync(file, { recursive: true });
    await settings().update('store.journalLimitBytes', undefined, vscode.ConfigurationTarget.Global);
    await run('newSession');
  });

  it('show in the stats, the log and the status bar; past the journal limit outputs are refused; all clears once a checkpoint succeeds', async () => {
    await settings().update('store.journalLimitBytes', LIMIT, vscode.ConfigurationTarget.Global);
    const sessionId = await run<string>('newSession'); // opened with the limit
    assert.ok(sessionId);
    file = sessionFileOf(sessionId);
    const before = await api.retain('retained before the failure', { tool: 'checkpoints-test' });
    await waitFor('the first checkpoint', async () => (await api.stats()).journalBytes === 0, 10_000);
    const healthy = await api.stats();
    assert.equal(healthy.lastCheckpointError, undefined);
    assert.equal(healthy.journalLimitBytes, LIMIT, 'the setting reached the store');
    assert.equal(sessionStatusView(healthy).backgroundColor, undefined);

    const failedAfter = Date.now();
    fs.rmSync(file);
    fs.mkdirSync(file);
    fs.writeFileSync(path.join(file, 'blocker'), '');
    const during = await api.retain('x'.repeat(200 * KiB), { tool: 'checkpoints-test' });
    await waitFor('the checkpoint error in the stats', async () => (await api.stats()).lastCheckpointError !== undefined, 10_000);
    const failing: SessionStats = await api.stats();
    const error = failing.lastCheckpointError!;
    assert.match(error.message, /EISDIR/);
    assert.ok(error.at >= failedAfter && error.at <= Date.now(), `at ${error.at}`);
    assert.ok(failing.journalBytes > 200 * KiB && failing.journalBytes < LIMIT, `journal ${failing.journalBytes}`);
    assert.equal((await api.read(before.outputId)).text, 'retained before the failure', 'retained outputs stay readable');
    assert.equal((await api.read(during.outputId, 0, 3)).text, 'xxx');

    await waitFor(
      'the warning in the log',
      () => extensionLog().includes(`checkpoint of session ${sessionId} failed: EISDIR`),
      LOG_FILE_MS,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the log ends:\n${extensionLog().slice(-3000)}`);
    });
    assert.equal(error.code, 'EISDIR');
    const view = sessionStatusView(failing);
    assert.ok(view.text.startsWith('$(warning) '), view.text);
    assert.equal(view.backgroundColor?.id, 'statusBarItem.warningBackground');
    assert.match(view.tooltip.value, /Saving this session is failing/);
    assert.match(view.tooltip.value, /EISDIR/);
    assert.ok(view.tooltip.value.includes(`Journal: ${sizeText(failing.journalBytes)} of its 512 KiB limit.`), view.tooltip.value);
    assert.match(
      view.tooltip.value,
      /Retained outputs are safe in the journal.*New outputs will be refused once the journal passes its limit/,
    );

    // Past the limit the journal refuses new outputs: the model would get only the preview.
    await assert.rejects(api.retain('y'.repeat(400 * KiB), { tool: 'checkpoints-test' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'STORE_UNAVAILABLE', String(e));
      return true;
    });

    // Retries fail the same way (only the temporary file's name differs): logged once, not per retry.
    const warnings = extensionLog()
      .split('\n')
      .filter((l) => l.includes(`checkpoint of session ${sessionId} failed`));
    assert.equal(warnings.length, 1, warnings.join('\n'));

    fs.rmSync(file, { recursive: true });
    const repaired = await api.retain('retained after the repair', { tool: 'checkpoints-test' });
    await waitFor('the checkpoint error to clear', async () => (await api.stats()).lastCheckpointError === undefined, 10_000);
    const caughtUp = await api.stats();
    assert.equal(caughtUp.journalBytes, 0, 'the journal is folded into the session file');
    assert.equal(caughtUp.outputs, 3);
    assert.equal((await api.read(repaired.outputId)).text, 'retained after the repair');
    await waitFor('"caught up" in the log', () => extensionLog().includes(`checkpoints caught up in session ${sessionId}`), LOG_FILE_MS);
    assert.equal(sessionStatusView(caughtUp).backgroundColor, undefined);
  });
});
