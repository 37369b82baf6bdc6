/**
 * Screenshots in dark, light and high-contrast themes (test/artifacts/), with the theme variables
 * and body classes VS Code sets. Look at them: the inspector must look native in all three.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { PanelDouble, test, type TestContext } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors, navigate } from './helpers';
import type { ThemeName } from './themes';

const COMMAND =
  `for i in $(seq 1 2500); do printf '\\033[32m✓\\033[0m test %d passed 測試 🎉 \\033[2m(12 ms)\\033[0m\\n' $i; done; ` +
  `printf '\\033[1;31mFAIL\\033[0m src/pager.test.ts › pages concatenate: expected 4096, got 4093\\n' >&2; exit 1`;

for (const theme of ['dark', 'light', 'high-contrast'] as ThemeName[]) {
  test(`screenshot: ${theme}`, async (ctx: TestContext) => {
    const store = await tempStore();
    const result = await commandOutput(store, COMMAND, 64 * 1024);
    const panel = await PanelDouble.open(ctx, { store, outputId: result.outputId, theme, viewport: { width: 1400, height: 900 } });
    const { page } = panel;
    await page.fill('.search-input', 'passed 測試');
    await page.press('.search-input', 'Enter');
    await page.waitForSelector('.search-result');
    await navigate(page, () => page.click('.search-result >> nth=5'));
    await page.focus('[data-flag="complete"]');
    await page.waitForSelector('.tooltip:not([hidden])');
    const file = path.join(ctx.artifactsDir, `inspector-${theme}.png`);
    await page.screenshot({ path: file });
    ctx.log(`screenshot: ${file}`);
    if (theme === 'dark') {
      await navigate(page, () => page.click('button:has-text("End")'));
      await page.setViewportSize({ width: 700, height: 1000 });
      await page.focus('.slider');
      const narrow = path.join(ctx.artifactsDir, 'inspector-dark-narrow.png');
      await page.screenshot({ path: narrow, fullPage: true });
      ctx.log(`screenshot: ${narrow}`);
    }
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'the theme background applies');
    assertNoErrors(panel.errors);
    await panel.close();
  });
}
