// The prompt files in package.json's chatAgents, chatInstructions and chatSkills, as the real
// workbench sees them: registered (its internal command `_listExtensionPromptFiles` lists every
// extension-contributed prompt file), and checked by its own prompt validator, which marks every tool
// name it cannot resolve. A copy of each file with one unknown tool added must get exactly one marker,
// for that tool: the validator ran on the whole text and found nothing else, so every tool the file
// names exists in this host — except Copilot Chat's tool sets (`edit`, `search`), which code-server
// does not load; those must be in the manifest of the Copilot Chat this VS Code build ships. The copies are files under the same
// relative paths in a scratch folder (VS Code picks a prompt file's language by its name), each path
// used once, so no marker of an earlier copy can be mistaken for this one's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, scratchDir, waitFor } from './helpers/host';
import { testLog } from './log';

// Inlined at bundle time, so a VSIX run checks the same entries as the installed copy's manifest.
const pkg = require('../../package.json') as { contributes: Record<string, { path: string }[]> };

/** What `_listExtensionPromptFiles` returns for each file (VS Code 1.139.1). */
interface ListedPromptFile {
  uri: { scheme: string; authority?: string; path: string };
  type: 'agent' | 'instructions' | 'prompt' | 'skill' | 'hook';
  extensionId: string;
}

const CONTRIBUTIONS = [
  { point: 'chatAgents', type: 'agent', language: 'chatagent' },
  { point: 'chatInstructions', type: 'instructions', language: 'instructions' },
  { point: 'chatSkills', type: 'skill', language: 'skill' },
] as const;

const UNKNOWN = `${EXTENSION_ID.toLowerCase()}/no_such_tool`;

describe('chat contributions: the Recall custom agent, instructions and skill in the real workbench', function () {
  this.timeout(60_000);
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('registers all three files under our extension', async () => {
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    const expected = CONTRIBUTIONS.map(({ point, type }) => {
      const entries = pkg.contributes[point];
      assert.equal(entries?.length, 1, `contributes.${point}`);
      return { type, path: vscode.Uri.joinPath(ext.extensionUri, entries[0].path).path };
    });
    let ours: { type: string; path: string }[] = [];
    await waitFor(
      'the three contributed prompt files in _listExtensionPromptFiles',
      async () => {
        const listed = await vscode.commands.executeCommand<ListedPromptFile[]>('_listExtensionPromptFiles');
        ours = listed
          .filter((file) => file.extensionId.toLowerCase() === EXTENSION_ID.toLowerCase())
          .map((file) => ({ type: file.type, path: file.uri.path }));
        return ours.length >= expected.length;
      },
      10_000,
    );
    assert.deepEqual(
      ours.sort((a, b) => a.type.localeCompare(b.type)),
      expected,
    );
    testLog(`    listed: ${ours.map((f) => `${f.type} ${f.path.slice(f.path.lastIndexOf('/chat/') + 1)}`).join(', ')}`);
  });

  for (const { point, language } of CONTRIBUTIONS) {
    it(`${point}: the validator knows every tool the file names`, async () => {
      const relative = pkg.contributes[point][0].path;
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(ext.extensionUri, relative)));
      const copy = path.join(scratchDir('chat-probe'), relative);
      fs.mkdirSync(path.dirname(copy), { recursive: true });
      fs.writeFileSync(copy, withUnknownTool(text, point === 'chatAgents'));
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(copy));
      assert.equal(doc.languageId, language, `VS Code does not take ${relative} for a ${language} file`);
      // The validator follows the models shown in code editors; its markers (owner
      // "prompts-diagnostics-provider") reach the extension host as diagnostics.
      await vscode.window.showTextDocument(doc);
      let diagnostics: vscode.Diagnostic[] = [];
      await waitFor(
        `the prompt validator's marker for ${UNKNOWN} in a copy of ${point}'s file`,
        () => {
          diagnostics = vscode.languages.getDiagnostics(doc.uri);
          return diagnostics.some((d) => d.message.includes(UNKNOWN));
        },
        20_000,
      );
      const described = diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
      testLog(`    ${point}: ${described.join(' | ')}`);
      const [probe, others] = partition(diagnostics, (d) => d.message.includes(UNKNOWN));
      assert.equal(probe.length, point === 'chatAgents' ? 2 : 1, described.join('\n'));
      const absent = others.map((d) => {
        const name = /^Unknown tool '([^'/]+)' will be ignored\.$/.exec(d.message)?.[1];
        assert.ok(name, `not about a built-in tool set: ${d.message}`);
        return name;
      });
      if (absent.length) assertCopilotToolSets(absent);
    });
  }
});

/**
 * Built-in tool sets the validator does not know here must be Copilot Chat's: VS Code ships it as a
 * built-in extension (its manifest is in the app's extensions/copilot) that contributes `edit`,
 * `search`, `web` and more, but code-server does not load it, so in this host those sets do not exist.
 * Where Copilot Chat is loaded, any such marker is a failure.
 */
function assertCopilotToolSets(names: string[]): void {
  const copilot = vscode.extensions.all.filter((e) => /copilot/i.test(e.id));
  assert.deepEqual(
    copilot.map((e) => e.id),
    [],
    `with Copilot Chat loaded, the validator does not know the tool sets ${names.join(', ')}`,
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(vscode.env.appRoot, 'extensions', 'copilot', 'package.json'), 'utf8')) as {
    name: string;
    contributes: { languageModelToolSets: { name: string }[] };
  };
  assert.equal(manifest.name, 'copilot-chat');
  const sets = manifest.contributes.languageModelToolSets.map((set) => set.name);
  for (const name of names)
    assert.ok(sets.includes(name), `'${name}' is neither known here nor a tool set of Copilot Chat (${sets.join(', ')})`);
  testLog(`    Copilot Chat is not loaded here; its manifest contributes ${names.join(', ')}`);
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/**
 * The file's text with an unknown tool added: as a body reference, and for the agent also in its
 * `tools:` header (there, a body reference to a tool the header lacks would be a second complaint).
 */
function withUnknownTool(text: string, inHeader: boolean): string {
  const reference = `${text.trimEnd()}\n\nThen call #tool:${UNKNOWN} to finish.\n`;
  if (!inHeader) return reference;
  assert.ok(reference.includes('\ntools:\n'), 'the agent file has no tools: list');
  return reference.replace('\ntools:\n', `\ntools:\n  - ${UNKNOWN}\n`);
}
