/**
 * The session line above the flags, and its warning while the session's checkpoints fail. The
 * failure is real: the session file's path is made a folder, so the checkpoint's atomic rename
 * fails (EISDIR) while journal appends go on, exactly what a user with a broken folder would get.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors } from './helpers';
import { bytes } from '../../webview/format';
import { waitUntil } from '../unit/helpers/timeScale';

/** Polls `check`; the deadline (5 s fixed before; now generous and ×TEST_TIME_SCALE) only fails a wait that never ends. */
const until = (what: string, check: () => Promise<boolean>): Promise<void> => waitUntil(what, check, 20_000, 25);

test('the session line, and a warning while checkpoints fail that goes once one succeeds', async (ctx: TestContext) => {
  const store = await tempStore();
  const { outputId } = await store.retain('retained before the failure\n', { tool: 'run_command', title: 'echo before' });
  await store.flush();
  const panel = await PanelDouble.open(ctx, { store, outputId });
  const { page } = panel;
  const sessionText = () => page.evaluate(() => document.querySelector('.session')?.textContent ?? '');
  const warning = () => page.evaluate(() => document.querySelector('.checkpoint-warning')?.textContent ?? null);

  assert.match(await sessionText(), new RegExp(`^Session ${store.sessionId} · 1 output · 28 B of 64\\.0 MiB retained · journal 0 B of `));
  assert.equal(await warning(), null, 'no warning while checkpoints succeed');

  rmSync(store.file);
  mkdirSync(store.file);
  writeFileSync(path.join(store.file, 'blocker'), '');
  await store.retain('x'.repeat(100 * 1024), { tool: 'run_command', title: 'retained while failing' });
  await until('the checkpoint error', async () => (await store.stats()).lastCheckpointError !== undefined);
  const stats = await store.stats();
  panel.session.changed();
  await page.waitForSelector('.checkpoint-warning');
  const shown = (await warning())!;
  assert.match(shown, /^Saving this session is failing\.Last checkpoint \(.+\): EISDIR: illegal operation on a directory, rename /);
  assert.ok(shown.includes(stats.lastCheckpointError!.message), 'the engine’s reason, whole');
  assert.ok(stats.journalBytes > 100 * 1024);
  assert.ok(
    shown.includes(`Retained outputs are safe in the journal (${bytes(stats.journalBytes)} of its `) &&
      shown.endsWith('and stay readable; once it passes the limit, new outputs will be refused until a checkpoint succeeds.'),
    shown,
  );
  assert.equal(await page.getAttribute('.checkpoint-warning', 'role'), 'alert');
  assert.ok(
    (await sessionText()).includes(
      `· 2 outputs · ${bytes(stats.retainedBytes)} of 64.0 MiB retained · journal ${bytes(stats.journalBytes)} of `,
    ),
    await sessionText(),
  );
  const file = path.join(ctx.artifactsDir, 'inspector-checkpoint-warning.png');
  await page.screenshot({ path: file });
  ctx.log(`screenshot: ${file}`);

  rmSync(store.file, { recursive: true });
  await store.flush();
  panel.session.changed();
  await page.waitForFunction(() => document.querySelector('.checkpoint-warning') === null);
  assert.match(await sessionText(), /· 2 outputs · .* · journal 0 B of /);
  assertNoErrors(panel.errors);
  await panel.close();
});
