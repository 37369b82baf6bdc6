/**
 * An output of an earlier session (the current session changed since it was opened): the page keeps
 * showing it, read-only, under a banner that names the session and whose button makes it current
 * again; the page keeps the session's ID in its state, so a restored panel reads the same session.
 * The session's name and the switch are the host's (SessionViews in the extension): a double here.
 */
import assert from 'node:assert/strict';
import { PanelDouble, test, type TestContext } from './harness';
import { tempStore } from './fixtures';
import { assertNoErrors, shownPage } from './helpers';
import type { SessionOrigin } from '../../webview/protocol';

const NAME = 'Dec 5, 2026, 9:56 PM · sh earlier-build.sh · 1 output · 3.2 KiB';

for (const theme of ['dark', 'high-contrast'] as const) {
  test(`an earlier session's output (${theme}): read-only under a banner naming its session; its button makes the session current again`, async (ctx: TestContext) => {
    const store = await tempStore();
    const text = Array.from({ length: 200 }, (_, i) => `earlier line ${i + 1}`).join('\n') + '\n';
    const { outputId } = await store.retain(text, { tool: 'run_command', title: 'sh earlier-build.sh' });
    const origin: SessionOrigin = { sessionId: store.sessionId, name: NAME, current: false };
    let switches = 0;
    // The switch tells the page its session changed, as the extension does after a switch.
    const opened: { panel?: PanelDouble } = {};
    const panel = await PanelDouble.open(ctx, {
      store,
      outputId,
      theme,
      sessionHost: {
        sessionId: store.sessionId,
        origin: async () => ({ ...origin }),
        switchSession: async () => {
          switches++;
          origin.current = true;
          opened.panel?.session.changed();
          return true;
        },
      },
    });
    opened.panel = panel;
    const { page } = panel;
    await page.waitForSelector('.earlier-session');
    assert.equal(await page.textContent('.earlier-session span'), `From an earlier session (${NAME}) — read-only`);
    assert.equal(await page.getAttribute('.earlier-session', 'role'), 'status', 'said, not alarmed: the output is still there');
    assert.equal(await page.locator('.banner.error').count(), 0);
    assert.equal((await shownPage(page)).offset, 0, 'the copy still pages');
    assert.equal((panel.state as { sessionId?: string }).sessionId, store.sessionId, 'the page keeps the session in its state');
    const file = `${ctx.artifactsDir}/inspector-earlier-session-${theme}.png`;
    await page.screenshot({ path: file });
    ctx.log(`screenshot: ${file}`);

    await page.click('.earlier-session button');
    await page.waitForSelector('.earlier-session', { state: 'detached' });
    assert.equal(switches, 1);
    assert.equal(await page.textContent('.notice'), 'Its session is the current one again.');
    assertNoErrors(panel.errors);
    await panel.close();
    await store.close();
  });
}
