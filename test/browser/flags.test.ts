/**
 * The flags shown match the engine's for complete, incomplete and evicted copies made by the real
 * capture path, and the preview shown is exactly the one the model received.
 */
import assert from 'node:assert/strict';
import type { SessionStore } from '../../src/core/store/sessionStore';
import type { OutputInfo } from '../../src/core/types';
import { PanelDouble, test, type TestContext } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors, flags, navigate, pageFlag, shownPage, shownPreview } from './helpers';

const PLAIN_END = 'you reached the end of what was saved, and what was saved is not all';

async function expectEngineFlags(panel: PanelDouble, store: SessionStore, outputId: string): Promise<OutputInfo> {
  const info = await store.info(outputId);
  const shown = await flags(panel.page);
  assert.equal(shown.complete.value, String(info.complete), 'complete');
  assert.equal(shown.dropped.value, String(info.droppedBytes), 'dropped');
  assert.equal(shown.saved.value, info.evicted ? 'evicted' : 'saved', 'saved');
  const extra = info.extra as Record<string, { capturedBytes: number; totalBytes: number }> & {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    cancelled: boolean;
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    assert.equal(shown[stream].value, `${extra[stream].capturedBytes}/${extra[stream].totalBytes}`, stream);
  }
  assert.equal(shown.exit.value, extra.signal ?? String(extra.exitCode), 'exit');
  assert.equal(shown.timedOut.value, String(extra.timedOut), 'timedOut');
  assert.equal(shown.cancelled.value, String(extra.cancelled), 'cancelled');
  if (!info.evicted) {
    const page = await shownPage(panel.page);
    const engine = await store.read(outputId, page.offset, 4096);
    assert.equal((await pageFlag(panel.page)).value, String(engine.hasMore), 'hasMore of the page on screen, with the pager');
  } else {
    assert.equal(await panel.page.$('[data-page-flag]'), null, 'no page, no hasMore');
  }
  assert.equal(shown.hasMore, undefined, "hasMore is the page's, not among the output's flags");
  // Every flag explains itself in plain words.
  for (const [key, flag] of Object.entries(shown)) assert.ok(flag.tip.length > 20, `${key} has a tooltip`);
  return info;
}

test('complete copy: flags match the engine; the preview is exactly what the model got', async (ctx: TestContext) => {
  const store = await tempStore();
  const result = await commandOutput(store, 'seq 1 30000; echo done >&2');
  const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId });
  const info = await expectEngineFlags(panel, store, result.outputId);
  assert.equal(info.complete, true);
  const shown = await flags(panel.page);
  assert.equal(shown.exit.value, '0');
  // run_command records the text the model received with the copy (extra.preview): shown as it was.
  assert.equal(shown.preview.value, 'recorded');
  assert.equal(await shownPreview(panel.page), result.text, 'the preview shown is the text the model received');
  assert.match((await panel.page.textContent('mark.omission')) ?? '', /bytes omitted: bytes \[\d+, \d+\)/);

  // The marker's button jumps to the first byte the model did not see.
  const from = Number(/bytes \[(\d+),/.exec((await panel.page.textContent('mark.omission'))!)![1]);
  const jumped = await navigate(panel.page, () => panel.page.click('.inline-action'), from);
  assert.equal(jumped.offset, from);
  assert.match((await panel.page.textContent('.page-seen')) ?? '', /did not see/);
  assert.equal(await panel.page.$('.banner'), null, 'no warning banner on a complete copy');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('a recorded preview (extra.preview) is preferred and its marker found', async (ctx) => {
  const store = await tempStore();
  const first = await commandOutput(store, 'seq 1 30000');
  const bytes = await store.readAll(first.outputId);
  const info = await store.info(first.outputId);
  // The same output as the lead retains it once the preview text is recorded: the preview alone,
  // edited, with its marker recomputed for that text (info.extra's is of the whole result text).
  const edit = (text: string): string => text.replaceAll(first.outputId, 'OUTPUT_ID_PLACEHOLDER');
  const { marker, omitted } = first.previewFacts ?? {};
  assert.ok(marker && omitted, 'the preview was cut');
  const preview = edit(first.preview);
  const start = edit(first.preview.slice(0, marker.start)).length;
  const end = start + edit(first.preview.slice(marker.start, marker.end)).length;
  const { outputId } = await store.retain(bytes, {
    tool: 'run_command',
    title: 'seq 1 30000',
    extra: { ...info.extra, preview, previewMarker: { start, end, from: omitted.from, to: omitted.to } },
  });
  const panel = await PanelDouble.open(ctx, { store, outputId });
  assert.equal((await flags(panel.page)).preview.value, 'recorded');
  assert.equal(await shownPreview(panel.page), preview);
  assert.equal(await panel.page.textContent('mark.omission'), preview.slice(start, end), 'the recorded marker is the one highlighted');
  assert.match(preview.slice(start, end), /bytes omitted: bytes \[\d+, \d+\)/);
  assertNoErrors(panel.errors);
  await panel.close();
});

test('incomplete copy: flags match; hasMore=false with complete=false is explained in plain words', async (ctx) => {
  const store = await tempStore();
  const result = await commandOutput(store, 'seq 1 200000; echo "something failed" >&2; exit 3', 64 * 1024);
  const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId });
  const info = await expectEngineFlags(panel, store, result.outputId);
  assert.equal(info.complete, false);
  assert.ok(info.gapOffset !== undefined);
  const shown = await flags(panel.page);
  assert.equal(shown.exit.value, '3');
  assert.match(shown.dropped.shown, new RegExp(`at byte ${info.gapOffset.toLocaleString('en-US')}`));
  assert.match((await panel.page.textContent('.banner.warn')) ?? '', /This copy is incomplete \(complete=false\)/);

  // The capture gap is marked inside the page that holds it.
  await navigate(panel.page, () => panel.page.click('button:has-text("Capture gap")'));
  assert.match((await panel.page.textContent('.gap-inline')) ?? '', /bytes dropped here/);

  // At the end of what was saved.
  await navigate(panel.page, () => panel.page.click('button:has-text("End")'));
  const end = await flags(panel.page);
  const endMore = await pageFlag(panel.page);
  const engineEnd = await store.read(result.outputId, (await shownPage(panel.page)).offset, 4096);
  assert.equal(engineEnd.hasMore, false);
  assert.equal(engineEnd.complete, false);
  assert.equal(endMore.value, 'false');
  assert.equal(end.complete.value, 'false');
  assert.ok(endMore.tip.toLowerCase().startsWith(PLAIN_END), `hasMore tooltip, words first: ${endMore.tip}`);
  assert.ok(((await panel.page.textContent('.banner.end-of-saved')) ?? '').toLowerCase().includes(PLAIN_END));

  // Tooltips show on keyboard focus, not only on hover.
  await panel.page.focus('[data-page-flag="hasMore"]');
  await panel.page.waitForSelector('.tooltip:not([hidden])');
  assert.ok(((await panel.page.textContent('.tooltip')) ?? '').toLowerCase().includes(PLAIN_END));
  await panel.page.keyboard.press('Escape');
  await panel.page.waitForSelector('.tooltip[hidden]', { state: 'attached' });
  assertNoErrors(panel.errors);
  await panel.close();
});

test('timed-out command: signal and timeout flags match the engine', async (ctx) => {
  const store = await tempStore();
  const result = await commandOutput(store, 'seq 1 40000; sleep 20', undefined, 1500);
  assert.equal(result.timedOut, true);
  const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId });
  await expectEngineFlags(panel, store, result.outputId);
  const shown = await flags(panel.page);
  assert.equal(shown.timedOut.value, 'true');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('evicted copy: flags say so, in words for people (not the engine’s); nothing to page', async (ctx) => {
  const store = await tempStore({ copyBytes: 64 * 1024, quotaBytes: 100 * 1024 });
  const old = await commandOutput(store, 'seq 1 30000');
  await commandOutput(store, 'seq 1 30001');
  const info = await store.info(old.outputId);
  assert.equal(info.evicted, true, 'the first copy was evicted by the second');
  const engine = await store.read(old.outputId, 0, 4096).then(
    () => '',
    (e: Error) => e.message,
  );
  assert.match(engine, /evicted/);

  const panel = await PanelDouble.open(ctx, { store, outputId: old.outputId });
  await expectEngineFlags(panel, store, old.outputId);
  const evicted =
    'The copy of this output was removed to keep the session within its size limit: its content is gone. Run the command again if you need it.';
  assert.equal(await panel.page.textContent('.banner.error'), evicted);
  assert.ok((await flags(panel.page)).saved.tip.includes(evicted));
  assert.ok(!(await panel.page.content()).includes(engine), "the engine's text for a model is not shown");
  assert.equal(await panel.page.isDisabled('.slider'), true);
  assert.equal(await panel.page.isDisabled('button:has-text("Next")'), true);
  // The copy is gone, but the text the model received was recorded with it, and is still shown.
  assert.equal((await flags(panel.page)).preview.value, 'recorded');
  assertNoErrors(panel.errors);
  await panel.close();
});

test('an unknown output ID says no retained output has it in the current session (not the engine’s text for a model)', async (ctx) => {
  const store = await tempStore();
  const missing = 'out_0123456789abcdef01234567';
  const engine = await store.info(missing).then(
    () => '',
    (e: Error) => e.message,
  );
  assert.match(engine, /Copy the outputId exactly from the tool result/);
  const panel = await PanelDouble.open(ctx, { store, outputId: missing });
  assert.equal(
    await panel.page.textContent('.banner.error'),
    `No retained output has the ID ${missing} in the current session. Check the ID, or switch to the session that retained it (command "Tool Output Recall: Switch Session…").`,
  );
  assert.equal((await flags(panel.page)).saved.value, 'not-found');
  assert.ok(!(await panel.page.content()).includes('Copy the outputId'), "the engine's text for a model is not shown");
  await panel.close();
});

test('outputs change while the panel is open: a retain keeps the page, an eviction is shown', async (ctx) => {
  const store = await tempStore({ copyBytes: 64 * 1024, quotaBytes: 150 * 1024 });
  const line = (n: number) => `line ${n} ${'x'.repeat(50)}\n`;
  const body = Array.from({ length: 1000 }, (_, i) => line(i)).join('');
  const a = await store.retain(body, { tool: 'run_command', title: 'first' });
  const panel = await PanelDouble.open(ctx, { store, outputId: a.outputId });
  const page = panel.page;
  const second = await navigate(page, () => page.click('button:has-text("Next")'));

  await store.retain(body, { tool: 'run_command', title: 'second' });
  panel.session.changed();
  // The webview has handled the change once its session line counts the new output (it describes the
  // output again and keeps the page), rather than after a fixed 500 ms.
  await page.waitForFunction(() => document.querySelector('.session')?.textContent?.includes(' 2 outputs '));
  assert.equal((await shownPage(page)).offset, second.offset, 'a retain elsewhere does not move the page');
  assert.equal((await flags(page)).saved.value, 'saved');

  await store.retain(body, { tool: 'run_command', title: 'third' }); // evicts the first
  assert.equal((await store.info(a.outputId)).evicted, true);
  panel.session.changed();
  await page.waitForSelector('.banner.error');
  assert.equal((await flags(page)).saved.value, 'evicted');
  assert.equal(await page.isDisabled('.slider'), true);
  assertNoErrors(panel.errors);
  await panel.close();
});
