/**
 * The inspector in Simplified Chinese: the page gets the zh-cn bundle inside its HTML, exactly as the
 * extension hands it over (html.ts; nothing is fetched), and the host side's texts (the preview
 * notes) come from @vscode/l10n configured with the same bundle, as activation does. Screenshots in
 * test/artifacts/inspector-zh-cn-*.png (CJK needs a CJK font on the machine: Debian fonts-noto-cjk).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { PanelDouble, test, type TestContext } from './harness';
import { commandOutput, midCharacterOffset, tempStore } from './fixtures';
import { assertNoErrors, flags, navigate, typeOffset } from './helpers';
import type { ThemeName } from './themes';

const REPO = path.resolve(__dirname, '../..');
const zh = JSON.parse(readFileSync(path.join(REPO, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
/** The translation of an English message of the bundle (the test fails loudly on a message it lacks). */
const t = (english: string): string => {
  const text = zh[english];
  if (text === undefined) throw new Error(`the zh-cn bundle has no ${JSON.stringify(english)}`);
  return text;
};
const CJK = /[\u4e00-\u9fff]/;
// The engine's own words, shown as they are in every language (they match what a tool result says).
const IDENTIFIERS = new Set(['complete', 'hasMore', 'stdout', 'stderr']);

const COMMAND =
  `for i in $(seq 1 3000); do printf '\\033[32m✓\\033[0m 测试 %d 通过 \\033[2m(12 ms)\\033[0m\\n' $i; done; ` +
  `printf '\\033[1;31mFAIL\\033[0m 分页测试：期望 4096，实际 4093\\n' >&2; exit 1`;

/** Runs `fn` with the host side's @vscode/l10n on the zh-cn bundle, as activation sets it; English again after. */
async function inChinese<T>(fn: () => Promise<T>): Promise<T> {
  l10n.config({ contents: zh });
  try {
    return await fn();
  } finally {
    l10n.config({ contents: {} });
  }
}

/** Every label a person reads on the page's controls and headings, with where it is. */
function visibleLabels(panel: PanelDouble): Promise<{ where: string; text: string }[]> {
  return panel.page.evaluate(() => {
    const found: { where: string; text: string }[] = [];
    const add = (where: string, text: string | null | undefined): void => {
      if (text && text.trim()) found.push({ where, text: text.trim() });
    };
    for (const e of document.querySelectorAll<HTMLElement>('button:not([hidden]) .label, h2, .field-label, .field-unit, .flag-label'))
      add(e.className || e.tagName, e.textContent);
    for (const e of document.querySelectorAll<HTMLElement>('[aria-label]')) {
      // Marks and flags (the page's hasMore too) name the output's own text or value in their label; the rest are fixed texts.
      if (!e.matches('mark, [data-flag], [data-page-flag]')) add(`aria-label of ${e.className || e.tagName}`, e.getAttribute('aria-label'));
    }
    for (const e of document.querySelectorAll<HTMLElement>('button[title], .toggle[title]')) add(`title of ${e.className}`, e.title);
    add('search placeholder', document.querySelector<HTMLInputElement>('.search-input')?.placeholder);
    return found;
  });
}

for (const theme of ['dark', 'light'] as ThemeName[]) {
  test(`zh-cn: the whole page in Simplified Chinese (${theme})`, (ctx: TestContext) =>
    inChinese(async () => {
      const store = await tempStore();
      const result = await commandOutput(store, COMMAND, 64 * 1024);
      const panel = await PanelDouble.open(ctx, {
        store,
        outputId: result.outputId,
        theme,
        language: 'zh-cn',
        bundle: zh,
        viewport: { width: 1400, height: 900 },
      });
      const { page } = panel;
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-cn');
      assert.deepEqual(await page.$$eval('h2', (hs) => hs.map((e) => e.textContent)), [
        t('Preview the model received'),
        t('Retained copy'),
      ]);

      // No control is left in English: each label is a translation of the bundle, or an engine word.
      const translations = new Set(Object.values(zh));
      const untranslated = (await visibleLabels(panel)).filter(
        ({ text }) => !IDENTIFIERS.has(text) && !(CJK.test(text) && [...translations].some((zhText) => sameShape(zhText, text))),
      );
      assert.deepEqual(untranslated, [], 'labels that are not translations from the zh-cn bundle');

      const shown = await flags(page);
      assert.equal(shown.saved.shown, t('saved'));
      assert.equal(shown.complete.shown, 'false');
      assert.match(shown.complete.tip, /^complete=false：副本不是完整的输出。/);
      assert.equal(shown.exit.shown, '1');
      assert.equal(shown.exit.tip, t('The command exited with status {0}: a non-zero status usually means it failed.').replace('{0}', '1'));
      // Whatever the preview's source (recorded, or rebuilt from the copy), it is named and explained in Chinese.
      assert.equal(shown.preview.shown, t(shown.preview.value));
      assert.match(shown.preview.tip, CJK);
      assert.match(await page.textContent('.session-facts').then(String), new RegExp(`^会话 ${store.sessionId} · 1 个输出 · `));
      assert.match(
        String(await page.textContent('.banner.warn')),
        /^此副本不完整（complete=false）：保存之前，输出中有 .+在字节 [\d,]+ 处被丢弃。/,
      );
      assert.match(String(await page.textContent('.page-status')), /^字节 0 到 4,0\d\d，共 [\d,]+ · 第 1–\d+ 行，共 [\d,]+ 行$/);
      assert.match(String(await page.textContent('.pane-note')), CJK);

      // Next page, then a search, then the error of a mid-character offset with its Chinese buttons.
      const next = await navigate(page, () => page.click(`button:has-text("${t('Next')}")`));
      assert.ok(next.offset > 0);
      await page.fill('.search-input', '通过');
      await page.press('.search-input', 'Enter');
      await page.waitForSelector('.search-result');
      // The copy is incomplete: the summary then says, in Chinese too, what was dropped and where.
      const dropped = t(
        'The copy is incomplete: {dropped} bytes of the output were dropped at byte {offset} and are not in it, so a match there cannot be found.',
      ).replace(/\{\w+\}/g, '[\\d,]+');
      assert.match(
        String(await page.textContent('.search-summary')),
        new RegExp(`^[\\d,]+\\+? 个匹配项（列出了前 [\\d,]+ 个）。选择一个以显示其所在页。( ${dropped})?$`),
      );
      assert.match(String(await page.textContent('.search-result .where')), /^第 1 行 · 字节 \d+$/);
      const copy = Buffer.from(await store.readAll(result.outputId));
      const mid = midCharacterOffset(copy, 100);
      await typeOffset(page, mid);
      await page.waitForSelector('.page-error[data-code="MID_CHARACTER_OFFSET"]');
      assert.match(String(await page.textContent('[data-boundary="before"]')), /^字节 [\d,]+（之前）$/);
      assert.match(String(await page.textContent('.boundaries')), /^最近的字符边界：/);

      await page.focus('[data-flag="complete"]');
      await page.waitForSelector('.tooltip:not([hidden])');
      const file = path.join(ctx.artifactsDir, `inspector-zh-cn-${theme}.png`);
      await page.screenshot({ path: file });
      ctx.log(`screenshot: ${file}`);

      // The bundle travelled in the page: nothing but the page, its script, its stylesheets was loaded.
      assert.deepEqual(
        panel.requests.filter((url) => !/\/(panel\/p\d+|dist\/inspector\.(js|css)|theme\/[a-z-]+\.css)$/.test(url)),
        [],
      );
      assertNoErrors(panel.errors);
      await panel.close();
    }));
}

test('zh-cn: the host side speaks Chinese too (the note of a preview rebuilt from the copy)', (ctx: TestContext) =>
  inChinese(async () => {
    const store = await tempStore();
    const lines = Array.from({ length: 4000 }, (_, i) => `第 ${i + 1} 行：构建日志`).join('\n');
    // A run_command copy retained without its preview (an older output): the host rebuilds the preview.
    const { outputId } = await store.retain(lines, { tool: 'run_command', title: 'make build' });
    const panel = await PanelDouble.open(ctx, { store, outputId, language: 'zh-cn', bundle: zh });
    const note = String(await panel.page.textContent('.pane-note'));
    assert.match(note, /^按 24576 字节的预算（当前的 previewBytes 设置）根据副本重建：模型实际得到的文本未被记录。/);
    assert.equal((await flags(panel.page)).preview.shown, t('recomputed'));
    assertNoErrors(panel.errors);
    await panel.close();
  }));

/** Whether `shown` is `template` with its placeholders filled in (any text for each placeholder). */
function sameShape(template: string, shown: string): boolean {
  const pattern = template
    .split(/\{[^{}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+?');
  return new RegExp(`^${pattern}$`, 's').test(shown);
}
