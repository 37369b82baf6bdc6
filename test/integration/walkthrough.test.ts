// The walkthrough (issue 29, item 8), in a real host: contributed with its three steps (run a command
// in chat, open the inspector, connect other agents), each step's page a markdown file the VSIX
// carries (.vscodeignore's allowlist), in English and in Simplified Chinese; and it opens in the Welcome editor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { recallApi, skipBecause } from './helpers/host';
import { Webview, hasDriver, workbenchScreenshot } from './helpers/webview';

const EXTENSION_ID = 'tool-output-recall.tool-output-recall';
const WALKTHROUGH = `${EXTENSION_ID}#gettingStarted`;
const workbench = new Webview({ selector: '.monaco-workbench' });

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown: string };
}

describe('walkthrough', function () {
  this.timeout(120_000);

  before(() => recallApi());
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('is contributed with three steps (run a command in chat, the inspector, other agents), each with its page, in en and zh-cn', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, EXTENSION_ID);
    // The manifest as VS Code read it: its %keys% already replaced in the display language.
    const [walkthrough] = extension.packageJSON.contributes.walkthroughs as { id: string; title: string; steps: Step[] }[];
    assert.equal(walkthrough.id, 'gettingStarted');
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['runCommand', 'openInspector', 'connectAgents'],
    );
    for (const step of walkthrough.steps) {
      assert.ok(!step.title.startsWith('%') && !step.description.startsWith('%'), `${step.id}: its texts are translated, not keys`);
      assert.match(step.description, /\]\(command:[\w.]+\)/, `${step.id}: a link that runs the step's command`);
      const page = path.join(extension.extensionPath, step.media.markdown);
      assert.ok(fs.existsSync(page), `${step.id}: ${page}`);
      if (vscode.env.language.startsWith('zh')) assert.match(step.media.markdown, /\/zh-cn\//);
    }
    // Run with --vsix, the pages found are the ones the package carries (.vscodeignore's allowlist).
    const root = extension.extensionPath;
    for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
      const texts = JSON.parse(fs.readFileSync(path.join(root, nls), 'utf8')) as Record<string, string>;
      for (const step of walkthrough.steps)
        assert.ok(fs.existsSync(path.join(root, texts[`walkthrough.${step.id}.media`])), `${nls}: ${step.id}`);
    }
  });

  it('opens in the Welcome editor, its steps listed', async function () {
    if (!hasDriver()) return skipBecause(this, "the Welcome editor is read through scripts/host/run.mjs's driver");
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const [walkthrough] = extension.packageJSON.contributes.walkthroughs as { title: string; steps: Step[] }[];
    // Room for the step's page beside the steps, as in a window without the chat open.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    const page = '.gettingStartedContainer';
    await workbench.waitFor(`${page} :text("${walkthrough.steps[0].title}")`);
    const shown = await workbench.text(page);
    for (const step of walkthrough.steps) assert.ok(shown.includes(step.title), `${step.title} in:\n${shown}`);
    assert.ok(shown.includes(walkthrough.title), `the walkthrough's title: ${shown.slice(0, 400)}`);
    // The selected step's page (its markdown, rendered in a webview of the Welcome editor).
    const media = new Webview({ selector: 'h1 + p + blockquote' }, 30_000);
    const heading = await media.text('h1');
    const expected = vscode.env.language.startsWith('zh') ? '在聊天中运行命令' : 'Run a command in chat';
    assert.equal(heading.trim(), expected, "the first step's page");
    await workbenchScreenshot('walkthrough.png');
  });
});
