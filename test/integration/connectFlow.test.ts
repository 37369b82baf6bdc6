// "Connect Other Agents…" as a person goes through it (issue 29, item 3), in a real host: the agent
// picker (VS Code's quick pick, read and accepted in the workbench), Show Changes (the editor it opens,
// the documents in it, the question that follows), and the message at the end (read in the
// Notifications center, through the driver of scripts/host/run.mjs).
//
// The harness cannot answer a modal dialog: in a window running extension tests VS Code refuses to
// show one (its DialogService: "refused to show dialog in tests"). The tests share the extension's
// `vscode` API object, so the modal confirmation is answered by a wrapper around
// vscode.window.showInformationMessage that records the modal's message and detail and returns the
// button a test chose; every other call (the notifications) goes to VS Code's own. For the same
// reason VS Code never asks "Save changes?" in these tests (it answers "Don't Save" itself), so a
// diff that would ask is seen as what makes it ask: an untitled document with unsaved text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CHANGES_SCHEME, isChangesTab } from '../../src/extension/agents/changesPreview';
import type { ConnectResult } from '../../src/extension/agents/connect';
import { recallApi, scratchDir, skipBecause, waitFor, workspaceDir } from './helpers/host';
import { Webview, hasDriver, workbenchScreenshot } from './helpers/webview';
import { testLog } from './log';

const NLS = require('../../package.nls.json') as Record<string, string>;

/** The workbench page itself (not a webview). */
const workbench = new Webview({ selector: '.monaco-workbench' });

interface ModalCall {
  message: string;
  detail: string;
  items: string[];
}

/** Answers the modal information messages with `answers` in turn (a button's label), then with Cancel; records them. */
function answerModals(...answers: string[]): { calls: ModalCall[]; restore(): void } {
  const window = vscode.window as { showInformationMessage: (...args: unknown[]) => Thenable<unknown> };
  const original = window.showInformationMessage;
  const calls: ModalCall[] = [];
  window.showInformationMessage = (...args: unknown[]) => {
    const [message, options, ...items] = args;
    if (typeof options === 'object' && options !== null && (options as vscode.MessageOptions).modal) {
      calls.push({ message: String(message), detail: (options as vscode.MessageOptions).detail ?? '', items: items.map(String) });
      return Promise.resolve(answers[calls.length - 1]);
    }
    return original.apply(vscode.window, args);
  };
  return { calls, restore: () => (window.showInformationMessage = original) };
}

const allTabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((group) => group.tabs);

/** The question after Show Changes, up to the list of files (which the selector does not need). */
const writeQuestion = (): string => vscode.l10n.t('Write the changes shown to {0}?', '\u0000').split('\u0000')[0].trim();

/** Opens the Notifications center and waits for a notification holding `text` (no quotes in it: it goes in a selector). */
async function notification(text: string): Promise<string> {
  const item = `.notifications-center .notification-list-item:has-text("${text}")`;
  await vscode.commands.executeCommand('notifications.showList');
  await workbench.waitFor(item);
  return item;
}

describe('connect flow', function () {
  this.timeout(120_000);
  const workspace = (): string => workspaceDir();
  const written = (): string[] =>
    ['.mcp.json', path.join('.cursor', 'mcp.json'), path.join('.claude', 'settings.json')].filter((f) =>
      fs.existsSync(path.join(workspace(), f)),
    );
  let codexHome: string | undefined;
  let modals: ReturnType<typeof answerModals> | undefined;
  let tabsBefore = new Set<vscode.Tab>();
  // Connect checks by default the agents found on this machine (a command on PATH, a folder in the
  // home folder): each test runs with a home folder of its own, where every agent's folder is, unless it says otherwise.
  const realEnv = { HOME: process.env.HOME, PATH: process.env.PATH };
  const agentFolders = ['.claude', '.codex', '.cursor', '.gemini', '.qwen', '.copilot', '.config/opencode', '.config/kilo', '.cline'];
  const homeWith = (folders: readonly string[]): string => {
    const home = scratchDir('home');
    for (const folder of folders) fs.mkdirSync(path.join(home, folder), { recursive: true });
    return home;
  };

  const clean = () => {
    fs.rmSync(path.join(workspace(), '.mcp.json'), { force: true });
    for (const dir of ['.cursor', '.claude', '.gemini', '.qwen']) fs.rmSync(path.join(workspace(), dir), { recursive: true, force: true });
    fs.rmSync(path.join(workspace(), '.github', 'hooks', 'tool-output-recall.json'), { force: true });
  };

  before(async function () {
    if (!hasDriver()) return skipBecause(this, 'needs the workbench driver of scripts/host/run.mjs');
    await recallApi();
  });
  beforeEach(async () => {
    process.env.HOME = homeWith(agentFolders);
    tabsBefore = new Set(allTabs());
    clean();
    await vscode.commands.executeCommand('notifications.clearAll');
  });
  afterEach(async () => {
    modals?.restore();
    modals = undefined;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    // What a test opened (today's untitled diff included: the tests' VS Code closes it without asking).
    await vscode.window.tabGroups.close(
      allTabs().filter((tab) => !tabsBefore.has(tab)),
      true,
    );
    if (codexHome !== undefined) {
      fs.rmSync(codexHome, { recursive: true, force: true });
      delete process.env.CODEX_HOME;
      codexHome = undefined;
    }
    clean();
    for (const file of ['opencode.json', 'kilo.json']) fs.rmSync(path.join(workspace(), file), { force: true });
    fs.rmSync(process.env.HOME!, { recursive: true, force: true });
    process.env.HOME = realEnv.HOME;
    process.env.PATH = realEnv.PATH;
  });

  it('the picker checks by default only the agents found on this machine, and says which were found and how', async () => {
    // OpenCode by its folder, Kilo Code by its command on PATH, Cline by its folder (but global, so unchecked); no other agent.
    process.env.HOME = homeWith(['.config/opencode', '.cline']);
    const bin = scratchDir('bin');
    fs.writeFileSync(path.join(bin, 'kilo'), '#!/bin/sh\n', { mode: 0o755 });
    process.env.PATH = bin;
    modals = answerModals();
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents');
    const row = (name: string) => `.quick-input-widget .monaco-list-row:has-text("${name}")`;
    await workbench.waitFor(row('Kilo Code'));
    // Which were found, in the picker's placeholder (an attribute: waited for, since text() reads rendered text).
    const foundLine = vscode.l10n.t(
      'Found on this machine: {0}. Check the agents to give the server (nothing is written before you confirm)',
      new Intl.ListFormat(vscode.env.language, { style: 'long', type: 'conjunction' }).format(['OpenCode', 'Kilo Code', 'Cline']),
    );
    await workbench.waitFor(`.quick-input-widget input[placeholder=${JSON.stringify(foundLine)}]`, 'attached');
    const opencode = await workbench.text(row('OpenCode'));
    assert.ok(opencode.includes('opencode.json'), `OpenCode's row names its file: ${JSON.stringify(opencode)}`);
    assert.ok(opencode.includes(vscode.l10n.t('found: {0}', '~/.config/opencode')), `and how it was found: ${JSON.stringify(opencode)}`);
    const kilo = await workbench.text(row('Kilo Code'));
    assert.ok(kilo.includes(vscode.l10n.t('found: {0} on PATH', 'kilo')), JSON.stringify(kilo));
    const cline = await workbench.text(row('Cline'));
    assert.ok(
      cline.includes('cline_mcp_settings.json') && /global/i.test(cline),
      `Cline's row says its file is global: ${JSON.stringify(cline)}`,
    );
    const claude = await workbench.text(row('Claude Code'));
    assert.ok(
      claude.includes(vscode.l10n.t('not found on this machine (no command on PATH, no folder in your home folder)')),
      JSON.stringify(claude),
    );
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor('the confirmation', () => modals!.calls.length > 0);
    const { detail } = modals.calls[0];
    assert.ok(detail.includes(path.join(workspace(), 'opencode.json')), `OpenCode is checked:\n${detail}`);
    assert.ok(detail.includes(path.join(workspace(), 'kilo.json')), `Kilo Code is checked:\n${detail}`);
    assert.ok(
      detail.includes('"mcp": { "tool-output-recall": {"type":"local","command":["node"'),
      `the "mcp" entry with its command line as one array:\n${detail}`,
    );
    assert.ok(!detail.includes('cline_mcp_settings.json'), `Cline (global) is not checked by default:\n${detail}`);
    assert.ok(!detail.includes('.mcp.json') && !detail.includes('.gemini'), `agents not found are not checked:\n${detail}`);
    assert.equal(await done, undefined, 'cancelled');
    assert.ok(!fs.existsSync(path.join(workspace(), 'opencode.json')), 'nothing written');
  });

  it('the picker checks only the agents that write into the folder: Codex is unchecked and says its file is global, in the home folder', async () => {
    modals = answerModals();
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents');
    const codex = '.quick-input-widget .monaco-list-row:has-text("Codex")';
    await workbench.waitFor(codex);
    const description = await workbench.text(codex);
    assert.ok(
      description.includes('~/.codex/config.toml'),
      `Codex's row names its file in the home folder: ${JSON.stringify(description)}`,
    );
    assert.match(description, /global/i, `Codex's row says the file is global: ${JSON.stringify(description)}`);
    // Accepting the picker as it opened: the agents checked by default.
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor('the confirmation', () => modals!.calls.length > 0);
    const { detail } = modals.calls[0];
    assert.ok(detail.includes(path.join('.cursor', 'mcp.json')), `Cursor is checked:\n${detail}`);
    assert.ok(detail.includes('.mcp.json'), `Claude Code is checked:\n${detail}`);
    assert.ok(!detail.includes('config.toml'), `Codex (~/.codex/config.toml, global) is not checked by default:\n${detail}`);
    // Claude Code's hook retains the file Claude Code saved into the session (an outputId), not only points at it.
    assert.match(detail, /Claude Code saves it to, so it is kept in the session with an outputId/, `Claude Code's hook note:\n${detail}`);
    assert.equal(await done, undefined, 'cancelled');
    assert.deepEqual(written(), [], 'nothing written');
  });

  it('the picker lists Gemini CLI and Qwen Code checked (their files in the folder) and Copilot CLI unchecked, its server file global', async () => {
    modals = answerModals();
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents');
    const row = (name: string) => `.quick-input-widget .monaco-list-row:has-text("${name}")`;
    await workbench.waitFor(row('Qwen Code'));
    const gemini = await workbench.text(row('Gemini CLI'));
    assert.ok(gemini.includes('.gemini/settings.json'), `Gemini CLI's row names its file: ${JSON.stringify(gemini)}`);
    assert.ok(
      gemini.includes(vscode.l10n.t('(Gemini CLI runs the hook only in a folder it trusts)')),
      `and says its hook needs trust: ${gemini}`,
    );
    assert.ok((await workbench.text(row('Qwen Code'))).includes('.qwen/settings.json'));
    const copilot = await workbench.text(row('GitHub Copilot CLI'));
    assert.ok(
      copilot.includes('mcp-config.json') && /global/i.test(copilot),
      `Copilot CLI's row says its file is global: ${JSON.stringify(copilot)}`,
    );
    assert.ok(copilot.includes('.github/hooks/tool-output-recall.json'), `and names its hook in the folder: ${JSON.stringify(copilot)}`);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await waitFor('the confirmation', () => modals!.calls.length > 0);
    const { detail } = modals.calls[0];
    assert.ok(detail.includes(path.join('.gemini', 'settings.json')), `Gemini CLI is checked:\n${detail}`);
    assert.ok(detail.includes(path.join('.qwen', 'settings.json')), `Qwen Code is checked:\n${detail}`);
    assert.ok(
      detail.includes('AfterTool') && detail.includes('GEMINI_CLI_TRUST_WORKSPACE'),
      `the confirmation shows Gemini's hook:\n${detail}`,
    );
    assert.ok(
      !detail.includes('mcp-config.json') && !detail.includes('.github'),
      `Copilot CLI (global) is not checked by default:\n${detail}`,
    );
    assert.equal(await done, undefined, 'cancelled');
    assert.deepEqual(written(), [], 'nothing written');
    assert.ok(!fs.existsSync(path.join(workspace(), '.gemini')) && !fs.existsSync(path.join(workspace(), '.qwen')));
  });

  it('Show Changes opens a read-only diff and asks in a notification, not a modal over it; nothing in it asks to be saved', async () => {
    // One file there (its diff has two sides), two new ones (only the side they will have).
    const existing = `${JSON.stringify({ mcpServers: { other: { command: 'other-mcp' } } }, null, 2)}\n`;
    fs.writeFileSync(path.join(workspace(), '.mcp.json'), existing);
    const untouched = () => {
      assert.equal(fs.readFileSync(path.join(workspace(), '.mcp.json'), 'utf8'), existing);
      assert.deepEqual(written(), ['.mcp.json']);
    };
    modals = answerModals(vscode.l10n.t('Show Changes'));
    const documentsBefore = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', {
      agents: ['claude-code', 'cursor'],
    });
    let opened: vscode.Tab[] = [];
    await waitFor('the editor Show Changes opens', () => (opened = allTabs().filter((tab) => !tabsBefore.has(tab))).length > 0);
    const shown = () => vscode.workspace.textDocuments.filter((d) => !documentsBefore.has(d.uri.toString()));
    // (A file document is VS Code's own: it may open settings.json to write a setting while this runs.)
    const unsaved = () => shown().filter((d) => d.isUntitled || (d.isDirty && d.uri.scheme !== 'file'));
    assert.deepEqual(
      unsaved().map((d) => `${d.uri.toString()} (${d.isUntitled ? 'untitled' : ''}${d.isDirty ? ' unsaved' : ''})`),
      [],
      'the diff holds no untitled or unsaved document (closing it would ask to save one)',
    );
    // The diff's sides: the files as they are and as they will be, read-only.
    await waitFor('the diff documents', () => shown().some((d) => d.uri.scheme !== 'file' && d.getText().includes('tool-output-recall')));
    const sides = shown().filter((d) => d.uri.scheme !== 'file');
    assert.ok(
      sides.every((d) => d.uri.scheme === CHANGES_SCHEME && !d.isDirty),
      sides.map((d) => d.uri.toString()).join('\n'),
    );
    assert.equal(opened.filter(isChangesTab).length, 1, 'one changes editor, with every file');

    // The question comes back without a modal: the modal was asked once, the rest is a notification.
    const question = await notification(writeQuestion());
    assert.equal(modals.calls.length, 1, 'no modal over the diff');
    untouched(); // nothing written before the answer

    await workbench.waitFor(`${question} .monaco-button:has-text("${vscode.l10n.t('Cancel')}")`);

    // Closing the diff asks nothing, leaves nothing unsaved behind, and answers Cancel: the question was about it.
    await vscode.window.tabGroups.close(
      allTabs().filter((tab) => opened.includes(tab)),
      true,
    );
    assert.deepEqual(
      unsaved().map((d) => d.uri.toString()),
      [],
    );
    assert.equal(await done, undefined, 'closing the diff cancels');
    untouched();
  });

  it("Show Changes keeps Write and Cancel in the changes editor's title until answered, after the notification is gone", async () => {
    const title = (key: string): string =>
      (vscode.env.language.startsWith('zh') ? (require('../../package.nls.zh-cn.json') as Record<string, string>) : NLS)[key];
    const action = (key: string) => `.editor-actions .action-label[aria-label*=${JSON.stringify(title(key))}]`;
    modals = answerModals(vscode.l10n.t('Show Changes'));
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', {
      agents: ['claude-code', 'cursor'],
    });
    await notification(writeQuestion());
    // VS Code hides the notification after a few seconds; cleared here, it is gone from the bell too.
    await vscode.commands.executeCommand('notifications.clearAll');
    await workbench.waitFor(action('command.writeShownChanges.title'));
    await workbench.waitFor(action('command.cancelShownChanges.title'));
    testLog(`    screenshot: ${await workbenchScreenshot('connect-changes-title-actions.png')}`);
    assert.deepEqual(written(), [], 'nothing written before the answer');
    await workbench.click(action('command.writeShownChanges.title'));
    const result = await done;
    assert.ok(result, "Write in the editor's title writes");
    assert.deepEqual(written().sort(), ['.mcp.json', path.join('.claude', 'settings.json'), path.join('.cursor', 'mcp.json')].sort());
    assert.equal(allTabs().filter(isChangesTab).length, 0, 'the changes editor closes once answered');
    await workbench.waitFor(action('command.writeShownChanges.title'), 'detached');
  });

  it("Write in Show Changes' notification writes, and the message names each agent once, in a sentence of its own", async () => {
    modals = answerModals(vscode.l10n.t('Show Changes'));
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', {
      agents: ['claude-code', 'cursor'],
    });
    const question = await notification(writeQuestion());
    const changesTab = () => allTabs().filter(isChangesTab);
    await waitFor('the changes editor', () => changesTab().length === 1);
    testLog(`    screenshot: ${await workbenchScreenshot('connect-show-changes.png')}`);
    await workbench.click(`${question} .monaco-button:has-text("${vscode.l10n.t('Write')}")`);
    const result = await done;
    assert.ok(result, 'written');
    assert.equal(changesTab().length, 0, 'the changes editor closes once answered: it showed a proposal');
    // Claude Code has two files (its server entry and its hook): still one agent.
    assert.deepEqual(
      result.files.map((f) => [path.relative(workspace(), f.file), f.agent, f.outcome]),
      [
        ['.mcp.json', 'Claude Code', 'written'],
        [path.join('.claude', 'settings.json'), 'Claude Code', 'written'],
        [path.join('.cursor', 'mcp.json'), 'Cursor', 'written'],
      ],
    );
    const text = await workbench.text(await notification('Cursor'));
    const times = (name: string) => text.split(name).length - 1;
    assert.deepEqual({ claude: times('Claude Code'), cursor: times('Cursor') }, { claude: 1, cursor: 1 }, text);
    // The list reads as a sentence in the display language ("Claude Code and Cursor"), not a comma list.
    const both = new Intl.ListFormat(vscode.env.language, { type: 'conjunction' }).format(['Claude Code', 'Cursor']);
    assert.ok(text.includes(both), `${JSON.stringify(both)} in ${JSON.stringify(text)}`);
  });

  it("Gemini CLI's settings.json, which gets its server and its hook, is one diff in Show Changes, and both are written", async () => {
    const file = path.join(workspace(), '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ theme: 'Default' }, null, 2)}\n`);
    modals = answerModals(vscode.l10n.t('Show Changes'));
    const done = vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', { agents: ['gemini-cli'] });
    const question = await notification(writeQuestion());
    const changesTab = () => allTabs().filter(isChangesTab);
    await waitFor('the changes editor', () => changesTab().length === 1);
    const input = changesTab()[0].input as { textDiffs?: unknown[]; modified?: unknown };
    assert.equal(input.textDiffs?.length ?? (input.modified ? 1 : 0), 1, 'one diff for the one file');
    const after = () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme === CHANGES_SCHEME && d.uri.query.endsWith('-after'))?.getText() ?? '';
    await waitFor('the side as it will be', () => after().includes('AfterTool'));
    assert.ok(after().includes('"mcpServers"') && after().includes('"theme"'), after());
    assert.ok((await workbench.text(question)).includes('.gemini/settings.json'), 'the question names the file');
    await workbench.click(`${question} .monaco-button:has-text("${vscode.l10n.t('Write')}")`);
    const result = await done;
    assert.deepEqual(
      result?.files.map((f) => [path.relative(workspace(), f.file), f.outcome]),
      [
        [path.join('.gemini', 'settings.json'), 'written'],
        [path.join('.gemini', 'settings.json'), 'written'],
      ],
    );
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(settings), ['theme', 'mcpServers', 'hooks']);
    assert.equal(settings.hooks.AfterTool[0].matcher, 'run_shell_command');
    assert.match(settings.hooks.AfterTool[0].hooks[0].command, / hook gemini-cli-after-tool$/);
  });

  it('Write in the modal writes too, with the same message; the global Codex file only when Codex is picked', async () => {
    codexHome = scratchDir('codex-home');
    process.env.CODEX_HOME = codexHome;
    modals = answerModals(vscode.l10n.t('Write'));
    const result = await vscode.commands.executeCommand<ConnectResult | undefined>('toolOutputRecall.connectAgents', {
      agents: ['claude-code', 'codex'],
    });
    assert.ok(result, 'written');
    const text = await workbench.text(await notification('Codex'));
    assert.equal(text.split('Claude Code').length - 1, 1, `Claude Code named once: ${JSON.stringify(text)}`);
    assert.ok(fs.existsSync(path.join(codexHome, 'config.toml')));
    assert.match(modals.calls[0].detail, /Global/, `the confirmation says Codex's file is global:\n${modals.calls[0].detail}`);
  });
});
