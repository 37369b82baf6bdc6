/**
 * Issue 40 §5 in the browser: the page speaks to people. The end-of-copy banner is a sentence (no
 * "hasMore=false and complete=false:" before it, in English or Chinese); the session line names the
 * session as the picker and the tree do (its ID only in the tooltip); a time is shown in its one exact
 * form. Screenshots in the suite's artifacts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { PanelDouble, test, type TestContext } from './harness';
import { commandOutput, tempStore } from './fixtures';
import { assertNoErrors, navigate } from './helpers';
import { exactTime } from '../../webview/times';

const REPO = path.resolve(__dirname, '../..');
const zh = JSON.parse(readFileSync(path.join(REPO, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const NAME = 'Dec 6, 2026, 12:49:34 PM · seq 1 200000 … · 1 output · 64.0 KiB';
const PLAIN_END = 'You reached the end of what was saved, and what was saved is not all.';

for (const language of ['en', 'zh-cn'] as const) {
  test(`words for people (${language}): the end-of-copy banner is a sentence, the session line names the session`, async (ctx: TestContext) => {
    if (language === 'zh-cn') l10n.config({ contents: zh });
    try {
      const store = await tempStore();
      const { outputId } = await commandOutput(store, 'seq 1 200000; echo "something failed" >&2; exit 3', 64 * 1024);
      const panel = await PanelDouble.open(ctx, {
        store,
        outputId,
        viewport: { width: 900, height: 700 },
        ...(language === 'zh-cn' ? { language, bundle: zh } : {}),
        sessionHost: {
          sessionId: store.sessionId,
          origin: async () => ({ sessionId: store.sessionId, name: NAME, current: true }),
          switchSession: async () => false,
        },
      });
      const { page } = panel;
      await navigate(page, () => page.click('button[aria-keyshortcuts="Alt+End"]'));
      await page.waitForSelector('.banner.end-of-saved');
      const banner = await page.innerText('.banner.end-of-saved');
      assert.equal(banner, language === 'zh-cn' ? zh[PLAIN_END] : PLAIN_END, 'the banner is the plain sentence, translated');
      assert.ok(!banner.includes('hasMore'), banner);

      const facts = await page.innerText('.session-facts');
      assert.ok(facts.includes(NAME), `the session line names the session: ${facts}`);
      assert.ok(!facts.includes(store.sessionId), `its ID is not the name: ${facts}`);
      await page.focus('.session-name');
      await page.waitForSelector('.tooltip:not([hidden])');
      assert.ok((await page.innerText('.tooltip')).includes(store.sessionId), 'the ID is in the tooltip');
      // The output's time in the header's facts is in the one exact form, in the page's language.
      const spaced = (text: string) => text.replace(/\s/g, ' ');
      const header = spaced((await page.textContent('.heading .meta')) ?? '');
      const exact = spaced(exactTime((await store.info(outputId)).createdAt, language));
      assert.ok(header.includes(exact), `the header's facts give the time as ${exact}: ${header}`);
      if (language === 'zh-cn') {
        // Chinese puts a space between itself and a Latin word or a number, in every text of the page's own
        // (not the copy's and the preview's text, nor an ID).
        // Each text as written (a node of its own), not two elements' texts run together; dates as Intl writes them.
        const cramped = await page.evaluate(() => {
          const found: string[] = [];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement?.closest('.preview-text, .page-text, code, .output-id, .heading h1')) continue;
            const text = (node.textContent ?? '').replace(/\d+年\d+月\d+日/g, '');
            for (const m of text.matchAll(/.{0,8}([\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]).{0,8}/gu)) found.push(m[0]);
          }
          return found;
        });
        assert.deepEqual(cramped, [], 'Chinese next to a Latin word or a number without a space');
      }
      const file = path.join(ctx.artifactsDir, `inspector-words-for-people-${language}.png`);
      await page.screenshot({ path: file });
      ctx.log(`screenshot: ${file}`);
      assertNoErrors(panel.errors);
      await panel.close();
    } finally {
      l10n.config({ contents: {} });
    }
  });
}

test('one exact form of a time, in the page language (and the same function the tree and the session names use)', async () => {
  const at = Date.UTC(2026, 11, 6, 12, 49, 34);
  const text = exactTime(at, 'en-US');
  assert.equal(text, new Date(at).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' }));
  assert.match(text, /^[A-Z][a-z]{2} \d{1,2}, 2026, \d{1,2}:\d{2}:\d{2}\s[AP]M$/);
});
