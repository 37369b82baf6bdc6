// The inspector as the workbench paints it: these tests read the webview's rendered text, click in it
// and look at its pixels through the runner's driver (helpers/webview.ts, scripts/host/driver.mjs),
// for outputs made the way a model makes them (run_command). Screenshots go to test/artifacts/host/.
import * as assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { commandOutputId, invoke, readPage, recallApi, scaled, waitFor } from './helpers/host';
import { InspectorView, type Pane } from './helpers/inspectorView';
import { browserInfo, workbenchScreenshot } from './helpers/webview';
import { testLog } from './log';
import { paintFigures, type SliderToPaintResult } from '../../scripts/host/probes.mjs';

const run = <T = unknown>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(`toolOutputRecall.${command}`, ...args);

// 3,000 numbered lines (some CJK, some coloured), then the summary a model would look for.
const BUILD_LOG =
  `for i in $(seq 1 3000); do printf 'compiling unit %d 編譯單元 \\033[32mok\\033[0m\\n' $i; done; ` +
  `printf 'RESULT: 2999 passed, 1 failed\\n'`;

// Coloured test results with CJK and emoji, a failure at the end (as in the browser suite's screenshots).
const SCREENSHOT_LOG =
  `for i in $(seq 1 2500); do printf '\\033[32m✓\\033[0m test %d passed 測試 🎉 \\033[2m(12 ms)\\033[0m\\n' $i; done; ` +
  `printf '\\033[1;31mFAIL\\033[0m src/pager.test.ts › pages concatenate: expected 4096, got 4093\\n' >&2; exit 1`;

// Plain lines (no colour, so the pane shows them as the model got them), some CJK, a summary last.
const EXACT_LOG = `for i in $(seq 1 400); do echo "build step $i: compiled module_$i.ts (編譯)"; done; echo 'RESULT: 400 passed'`;

/** The label a recorded preview carries in the pane (webview/main.ts), in English. */
const EXACT_LABEL = 'Recorded when the tool ran: exactly what the model received.';

// The first version's rendering, for the comparison: content-visibility on each line.
const PER_LINE_CSS =
  '.chunk { content-visibility: visible; } .line { content-visibility: auto; contain-intrinsic-block-size: auto 1.45em; }';

/** The rendering the inspector ships, as bench/paint.mjs names it. */
const SHIPPED = 'chunks of 64 lines (shipped)';
/** Rounds of the shipped rendering when bench/paint.mjs compares (TOR_PAINT_VARIANTS). */
const PAINT_ROUNDS = 3;
// The panes as they were before they became relayout boundaries (inspector.css `contain: strict`),
// and with empty chunks watched by the browser too.
const BEFORE_CONTAINMENT = 'panes without containment (before)';
const BEFORE_CONTAINMENT_CSS = '.preview-text, .page-text { contain: none; } .chunk.pending { content-visibility: auto; }';

/**
 * `text` as the inspector shows it after `before` (the text just before it in the copy): SGR
 * sequences are not shown, also the rest of one begun in `before` (pages are cut by bytes).
 */
function visibleText(before: string, text: string): string {
  const joined = before + text;
  let out = '';
  let at = before.length;
  for (const m of joined.matchAll(/\x1b\[[\d;]*m/g)) {
    const end = m.index + m[0].length;
    if (end <= at) continue;
    if (m.index > at) out += joined.slice(at, m.index);
    at = end;
  }
  return out + joined.slice(at);
}

/** Opens `outputId` in the inspector panel and waits for its first page. */
async function openInspector(outputId: string, offset?: number): Promise<InspectorView> {
  assert.equal(await run('openOutput', outputId, offset === undefined ? undefined : { offset }), true);
  const view = new InspectorView(outputId);
  await view.ready();
  return view;
}

/** A pane has painted text: far more pixels differ from its background than its border alone makes. */
async function assertPainted(view: InspectorView, pane: Pane): Promise<void> {
  const ink = await view.ink(pane === 'preview' ? '.preview-text' : '.page-text');
  assert.ok(ink.inkPixels > 500, `the ${pane} pane painted nothing: ${JSON.stringify(ink)}`);
}

async function closeEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('inspector webview', function () {
  this.timeout(120_000);
  let outputId: string;
  let resultText: string;

  before(async () => {
    await recallApi();
    await closeEditors();
    // The editor area gets the whole window (the inspector's two-pane layout, as in an editor tab).
    for (const command of ['workbench.action.closeSidebar', 'workbench.action.closeAuxiliaryBar', 'workbench.action.closePanel']) {
      await vscode.commands.executeCommand(command);
    }
    const { text } = await invoke('run_command', { command: BUILD_LOG });
    resultText = text;
    outputId = commandOutputId(text);
    const info = await browserInfo();
    testLog(
      `    browser: Chromium ${info.version}, ${info.mode}${info.display ? ` on ${info.display}` : ''}, window ${JSON.stringify(info.viewport)}`,
    );
  });
  afterEach(closeEditors);

  it('the preview pane paints the text the model got, its omission marker in view', async () => {
    const view = await openInspector(outputId);
    await assertPainted(view, 'preview');
    const marker = await view.text('.preview-text mark.omission');
    assert.ok(resultText.includes(marker), `the marker shown is the one in the tool result:\n${marker}`);
    // The lines on either side of the marker, as the tool result has them, are on screen.
    const [before, after] = resultText.split(marker);
    const lastBefore = before.trimEnd().split('\n').at(-1)!;
    const firstAfter = after.split('\n').find((line) => line.startsWith('compiling unit'))!;
    const shown = (await view.renderedLines('preview')).map((line) => line.text);
    assert.ok(shown.includes(visibleText('', lastBefore)), `"${lastBefore}" is shown before the marker`);
    assert.ok(shown.includes(visibleText('', firstAfter)), `"${firstAfter}" is shown after the marker`);
  });

  it('the preview pane shows exactly the text run_command returned, labelled as exact, its marker leading into the copy', async () => {
    // A small preview budget (as a tight token budget makes it): the whole result is one chunk of lines, all rendered.
    const config = vscode.workspace.getConfiguration('toolOutputRecall');
    await config.update('previewBytes', 1024, vscode.ConfigurationTarget.Global);
    try {
      const { text } = await invoke('run_command', { command: EXACT_LOG });
      const id = commandOutputId(text);
      const view = await openInspector(id);
      await view.waitFor('.preview-note[data-source="recorded"] .preview-source');
      if (vscode.env.language === 'en') assert.equal(await view.text('.preview-note .preview-source'), EXACT_LABEL);
      assert.equal((await view.flags()).preview.value, 'recorded');
      await assertPainted(view, 'preview');

      // Line by line, the pane is the tool's result: header, head, marker (with its button), tail.
      const marker = await view.text('.preview-text mark.omission');
      const button = await view.text('.preview-text .inline-action');
      const shown = (await view.renderedLines('preview')).map((line) => {
        if (!line.text.startsWith(marker)) return line.text;
        assert.equal(line.text.slice(marker.length).trim(), button, 'after the marker only its button');
        return marker;
      });
      const expected = text.split('\n');
      if (expected.at(-1) === '') expected.pop(); // the empty "line" after the final newline is not shown
      assert.ok(expected.length < 64, `${expected.length} lines: one chunk, all rendered`);
      assert.deepEqual(shown, expected);
      // The header lines are part of it (the command line is clipped to 100 characters there).
      assert.ok(text.startsWith(`$ ${EXACT_LOG.slice(0, 100)}`), 'the header lines are part of it');

      // The marker's button shows the first byte the model did not see.
      const from = Number(/bytes \[(\d+), \d+\) of/.exec(marker)![1]);
      const page = await view.navigate(() => view.click('.preview-text .inline-action'), from);
      assert.equal(page.offset, from);
    } finally {
      await config.update('previewBytes', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Next shows the page that starts at nextOffset, painted, numbered from its first line', async () => {
    const view = await openInspector(outputId);
    const first = await view.page();
    assert.equal(first.offset, 0);
    await assertPainted(view, 'page');
    const shown = await view.navigate(() => view.click('button[aria-keyshortcuts="Alt+PageDown"]'), first.nextOffset);
    const engine = await readPage(outputId, first.nextOffset, 4096);
    assert.equal(shown.nextOffset, engine.nextOffset);
    const lines = await view.renderedLines('page');
    assert.equal(lines[0].number, shown.firstLine);
    const before = await readPage(outputId, 0, 4096);
    const expected = visibleText(before.text, engine.text).split('\n');
    assert.deepEqual(
      lines.slice(0, 5).map((line) => line.text),
      expected.slice(0, 5),
    );
    await assertPainted(view, 'page');
  });

  it('a mid-character offset in the offset box says so in words for people, with the nearest boundaries', async () => {
    const view = await openInspector(outputId);
    const firstPage = await readPage(outputId, 0, 4096);
    const mid = Buffer.byteLength(firstPage.text.slice(0, firstPage.text.indexOf('編'))) + 1;
    await view.fill('.input.offset', String(mid));
    await view.press('.input.offset', 'Enter');
    await view.waitFor('.page-error[data-code="MID_CHARACTER_OFFSET"]');
    const message = await view.text('.page-error .error-message');
    assert.equal(message, `Byte ${mid.toLocaleString('en-US')} is in the middle of a character: go to a character boundary.`);
    assert.match(await view.text('[data-boundary="before"]'), new RegExp(`${mid - 1}`));
    await view.navigate(() => view.click('[data-boundary="after"]'), mid + 2);
    await view.waitFor('.page-error', 'hidden');
  });

  it('a search result jumps to its line, which is on screen and marked', async () => {
    const view = await openInspector(outputId);
    await view.fill('.search-input', 'compiling unit 2500 ');
    await view.press('.search-input', 'Enter');
    await view.waitFor('.search-result');
    const shown = await view.navigate(() => view.click('.search-result'));
    assert.equal(await view.text('.line.focus-line .ln'), '2500');
    assert.ok(shown.firstLine <= 2500 && 2500 <= shown.lastLine, JSON.stringify(shown));
    const onScreen = await view.inside('.page-text', '.line.focus-line mark.match');
    assert.equal(onScreen, true, 'the match is inside the pane');
    assert.match(await view.text('.line.focus-line mark.match'), /^compiling unit 2500 $/);
  });

  it('the overview marks the notable lines of the whole copy (found on the store worker), and a mark shows its line', async () => {
    const { text } = await invoke('run_command', {
      command: `for i in $(seq 1 3000); do echo "compiling unit $i"; if [ $((i % 600)) = 0 ]; then echo "error: unit $i failed"; fi; done; echo 'RESULT: 2995 passed, 5 failed'`,
    });
    const view = await openInspector(commandOutputId(text));
    await view.waitFor('.overview-strip canvas.ov-marks');
    // The marks are painted on a canvas: the first error mark is found in its pixels and clicked there.
    let mark: { x: number; y: number } | null = null;
    await waitFor('the first error mark painted', async () => (mark = await view.probe('overviewMark', 'error')) !== null);
    assert.match(await view.text('.overview-legend'), /Errors: 5/);
    await view.navigate(() => view.click('.overview-strip canvas.ov-marks', mark!));
    await view.waitFor('.page-text .line.focus-line');
    assert.match(await view.text('.line.focus-line .text'), /^error: unit 600 failed/);
    testLog(`    screenshot: ${await view.screenshot('inspector-overview.png', 'body')}`);
  });

  it('the flags say complete for a whole copy and incomplete, with the warning, for a capped one', async () => {
    const complete = await openInspector(outputId);
    const flags = await complete.flags();
    assert.equal(flags.complete.value, 'true');
    await closeEditors();

    const config = vscode.workspace.getConfiguration('toolOutputRecall');
    await config.update('streamBytes', 65536, vscode.ConfigurationTarget.Global);
    try {
      const { text } = await invoke('run_command', { command: `yes 'a line that repeats' | head -c 300000; echo END` });
      assert.match(text, /complete: false/);
      const view = await openInspector(commandOutputId(text));
      assert.equal((await view.flags()).complete.value, 'false');
      assert.match(await view.text('.banner.warn'), /complete=false/);
      await view.navigate(() => view.click('button[aria-keyshortcuts="Alt+End"]'));
      assert.match(await view.text('.banner.end-of-saved'), /^You reached the end of what was saved, and what was saved is not all\.$/);
      // The page's hasMore chip says the same in words first, the fields after (its tooltip shows on keyboard focus).
      await view.press('[data-page-flag="hasMore"]', 'Shift');
      await view.waitFor('.tooltip');
      assert.equal(
        await view.text('.tooltip'),
        'You reached the end of what was saved, and what was saved is not all (hasMore=false, complete=false).',
      );
    } finally {
      await config.update('streamBytes', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('reloading the webview restores the page and the search it showed', async () => {
    const view = await openInspector(outputId);
    const first = await view.page();
    const second = await view.navigate(() => view.click('button[aria-keyshortcuts="Alt+PageDown"]'), first.nextOffset);
    await view.fill('.search-input', 'RESULT');
    await view.press('.search-input', 'Enter');
    await view.waitFor('.search-result');
    const loadedAt = await view.loadedAt();
    await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
    // The new page loads from scratch, then shows what the old one saved with setState.
    const restored = new InspectorView(outputId);
    await waitFor('the webview to reload', async () => (await restored.loadedAt().catch(() => loadedAt)) !== loadedAt, 20_000, 100);
    await restored.ready();
    const page = await restored.navigate(async () => undefined, second.offset);
    assert.equal(page.offset, second.offset);
    assert.equal(await restored.value('.search-input'), 'RESULT');
    await assertPainted(restored, 'page');
  });
  // The class VS Code gives a webview's body in each theme.
  const THEME_CLASS: Record<string, string> = {
    'Default Dark Modern': 'vscode-dark',
    'Default Light Modern': 'vscode-light',
    'Default High Contrast': 'vscode-high-contrast',
  };
  for (const [theme, file] of [
    ['Default Dark Modern', 'inspector-dark.png'],
    ['Default Light Modern', 'inspector-light.png'],
    ['Default High Contrast', 'inspector-high-contrast.png'],
  ]) {
    it(`screenshot in ${theme}: the tree and the inspector, CJK drawn as glyphs`, async () => {
      const config = vscode.workspace.getConfiguration('workbench');
      await config.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      try {
        const { text } = await invoke('run_command', { command: SCREENSHOT_LOG });
        const id = commandOutputId(text);
        await vscode.commands.executeCommand('workbench.view.extension.toolOutputRecall');
        const view = await openInspector(id);
        await view.fill('.search-input', 'passed 測試');
        await view.press('.search-input', 'Enter');
        await view.waitFor('.search-result');
        await view.navigate(() => view.click('.search-result >> nth=5'));
        await assertPainted(view, 'preview');
        await assertPainted(view, 'page');
        assert.equal(await view.hasGlyph('page', '測'), true, 'a CJK glyph is drawn, not a box (fonts-noto-cjk)');
        // The theme's colours reach the webview by a message, which also sets its body's theme class.
        await waitFor(`the webview in ${theme}`, async () => (await view.probe<string[]>('bodyClasses')).includes(THEME_CLASS[theme]));
        testLog(`    screenshot: ${await workbenchScreenshot(file)}`);
      } finally {
        await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('workbench.action.closeSidebar');
      }
    });
  }

  it('slider to painted page on a 4096-line page: measured (reported, not asserted)', async () => {
    const api = await recallApi();
    const content = '\n'.repeat(64 * 1024); // every page of it is 4096 lines
    const { outputId: id } = await api.retain(content, { tool: 'run_command', title: 'paint: 64 KiB of empty lines' });
    const view = await openInspector(id);
    const positions = Array.from({ length: 40 }, (_, i) => 1 + Math.floor((((i * 7919) % 40) / 40) * (content.length - 4097)));
    // bench/paint.mjs also compares the renderings this one replaced (same page, same positions):
    // after a warm-up round (the workbench is still busy with the panel just opened), the shipped
    // one and the one before it alternate, so that both see the same load.
    const renderings: [string, string][] = [[SHIPPED, '']];
    if (process.env.TOR_PAINT_VARIANTS) {
      renderings.unshift(['warm-up', '']);
      for (let round = 1; round < PAINT_ROUNDS; round++) renderings.push([BEFORE_CONTAINMENT, BEFORE_CONTAINMENT_CSS], [SHIPPED, '']);
      renderings.push(
        [BEFORE_CONTAINMENT, BEFORE_CONTAINMENT_CSS],
        ['content-visibility on every line (first version)', PER_LINE_CSS],
        ['no content-visibility', '.chunk { content-visibility: visible; }'],
      );
    }
    const info = await browserInfo();
    for (const [rendering, css] of renderings) {
      // A page or frame that does not come within the probe's limits counts as lost: generous limits
      // (a page arrives in tens of ms on an idle machine), ×TEST_TIME_SCALE.
      const limits = { pageLimitMs: scaled(10_000), frameLimitMs: scaled(2000) };
      const { times, parts, lines, visibility } = await view.probe<SliderToPaintResult>('sliderToPaint', { positions, css, ...limits });
      const figures = paintFigures(times);
      // The preview beside the page holds ~24,000 lines; it keeps rows only near its view.
      const previewRows = await view.probe<number>('count', '.preview-text .line');
      // Timing is reported, not asserted; a page that never arrives is a failure of the pager.
      assert.equal(figures.values.lost, 0, `${figures.summary}; the webview was ${visibility}`);
      testLog(`    slider→painted page (${lines} lines; ${previewRows} preview rows live), ${rendering}: ${figures.summary}`);
      const part = (key: 'toDom' | 'frame') => paintFigures(parts.map((p) => p[key])).summary.replace(/ over .*/, '');
      testLog(
        `      input to the page in the DOM (request, host, reply, rendering): ${part('toDom')}; then to the next frame: ${part('frame')}`,
      );
      if (rendering === 'warm-up') continue;
      // One line for bench/paint.mjs to collect (with the times: it pools the rounds).
      testLog(
        `    PAINT ${JSON.stringify({ where: 'host', browser: info.mode, rendering, lines, previewRows, ...figures.values, times })}`,
      );
    }
    testLog(
      `    (load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs)`,
    );
  });
});
