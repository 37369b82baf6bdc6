// Localization where it runs. The harness runs the whole suite in English and this suite again with
// `--locale zh-cn` (scripts/host/locale.mjs: the stub language pack that makes VS Code for the web use
// the language); TOR_TEST_LOCALE says which run this is. In each, the extension host's language is
// the one asked for, the manifest's strings come from package.nls(.<language>).json, and a text the
// extension builds with vscode.l10n for a person (the side view's placeholder, Search All Outputs'
// rows) is in that language.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { InspectorViewState } from '../../src/extension/inspector/inspectorView';
import type { SearchResultsSnapshot, SearchState } from '../../src/extension/inspector/searchAllOutputs';
import { EXTENSION_ID, commandOutputId, invoke, recallApi, skipBecause, waitFor } from './helpers/host';
import { InspectorView } from './helpers/inspectorView';
import { hasDriver, workbenchScreenshot } from './helpers/webview';
import { testLog } from './log';

const LANGUAGE = process.env.TOR_TEST_LOCALE ?? 'en';
const GONE = 'The output shown here is no longer in this session. Select another one in Retained Outputs.';
/** The inspector's label of a preview recorded when the tool ran (webview/main.ts), by display language. */
const EXACT_LABEL: Record<string, string> = {
  en: 'Recorded when the tool ran: exactly what the model received.',
  'zh-cn': '在工具运行时记录：正是模型收到的内容。',
};

type Localized = string | { value: string; original: string };
const shown = (text: Localized): string => (typeof text === 'string' ? text : text.value);

describe(`localization where it runs (${LANGUAGE})`, function () {
  this.timeout(60_000);
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  const readJson = (file: string): Record<string, string> =>
    JSON.parse(fs.readFileSync(path.join(ext.extensionPath, file), 'utf8')) as Record<string, string>;
  /** The display language's text for an English message of the bundle. */
  const inLanguage = (english: string): string => (LANGUAGE === 'en' ? english : readJson(`l10n/bundle.l10n.${LANGUAGE}.json`)[english]);

  before(async () => {
    await recallApi();
  });

  it('the extension host runs in the display language the harness asked for', () => {
    assert.equal(vscode.env.language, LANGUAGE);
  });

  it('the command titles, the category and the views are the manifest strings of that language', () => {
    const nls = readJson(LANGUAGE === 'en' ? 'package.nls.json' : `package.nls.${LANGUAGE}.json`);
    const manifest = ext.packageJSON as {
      contributes: {
        commands: { command: string; title: Localized; category: Localized }[];
        views: Record<string, { id: string; name: Localized }[]>;
      };
    };
    const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, shown(c.title)]));
    assert.equal(titles['toolOutputRecall.openOutput'], nls['command.openOutput.title']);
    assert.equal(titles['toolOutputRecall.switchSession'], nls['command.switchSession.title']);
    assert.equal(titles['toolOutputRecall.searchAllOutputs'], nls['command.searchAllOutputs.title']);
    assert.equal(shown(manifest.contributes.commands[0].category), nls.displayName);
    const views = Object.fromEntries(manifest.contributes.views.toolOutputRecall.map((v) => [v.id, shown(v.name)]));
    assert.equal(views['toolOutputRecall.outputs'], nls['view.outputs.name']);
    assert.equal(views['toolOutputRecall.inspectorView'], nls['view.inspectorView.name']);
    assert.equal(views['toolOutputRecall.searchResults'], nls['view.searchResults.name']);
    if (LANGUAGE !== 'en') assert.notEqual(titles['toolOutputRecall.openOutput'], 'Open Output in Inspector', 'translated, not English');
  });

  it('a text the extension writes for a person with vscode.l10n is in that language (the side view after its output is deleted)', async () => {
    const api = await recallApi();
    const { outputId } = await api.retain('localized\n', { tool: 'run_command', title: 'localization test' });
    await vscode.commands.executeCommand('toolOutputRecall.showOutputInView', outputId);
    await vscode.commands.executeCommand('toolOutputRecall.deleteOutput', outputId, { confirm: false });
    let state: InspectorViewState | undefined;
    await waitFor(
      'the side view to show its placeholder',
      async () => {
        state = await vscode.commands.executeCommand<InspectorViewState>('_toolOutputRecall.inspectorViewState');
        return state.placeholder !== undefined;
      },
      15_000,
    );
    assert.equal(state!.placeholder, inLanguage(GONE));
    if (LANGUAGE !== 'en') assert.notEqual(state!.placeholder, GONE);
  });

  it('Search All Outputs says that nothing matched in that language', async () => {
    const state = await vscode.commands.executeCommand<SearchState>('toolOutputRecall.searchAllOutputs', {
      pattern: `no such text ${Date.now()}`,
    });
    try {
      const { items } = await vscode.commands.executeCommand<SearchResultsSnapshot>('_toolOutputRecall.searchResultsItems');
      const template = state.searchedOutputs === 1 ? 'No match in the 1 output searched.' : 'No match in {0} outputs.';
      // First; rows about incomplete copies or unreadable sessions other suites left may follow.
      assert.equal(items[0]?.label, inLanguage(template).replace('{0}', String(state.searchedOutputs)));
      if (LANGUAGE !== 'en') assert.notEqual(items[0].label, template.replace('{0}', String(state.searchedOutputs)));
    } finally {
      await vscode.commands.executeCommand('toolOutputRecall.clearSearchResults');
    }
  });

  it("the inspector labels a fresh run_command output's preview as the exact text the model received, in that language", async function () {
    if (!hasDriver()) skipBecause(this, "the webview is read through scripts/host/run.mjs's driver, which this runner does not provide");
    const { text } = await invoke('run_command', { command: 'seq 1 20000' });
    const outputId = commandOutputId(text);
    assert.equal(await vscode.commands.executeCommand('toolOutputRecall.openOutput', outputId), true);
    try {
      const view = new InspectorView(outputId);
      await view.ready();
      await view.waitFor('.preview-note[data-source="recorded"] .preview-source');
      const label = await view.text('.preview-note .preview-source');
      assert.equal(label, EXACT_LABEL[vscode.env.language], `the label in ${vscode.env.language}`);
      assert.equal(label, inLanguage(EXACT_LABEL.en), 'the bundle of that language has it');
      // What a person sees in that language (the workbench's own texts stay English: see locale.mjs).
      await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
      testLog(`    screenshot: ${await workbenchScreenshot(`inspector-${vscode.env.language}.png`)}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
