// Loaded only by `npm start` (scripts/start.mjs), beside the extension under development. A person
// trying the extension has no agent here (code-server has no Copilot), so this command plays the
// agent's part: it calls run_command through vscode.lm.invokeTool exactly as a model's tool call
// does, shows the result text the model would get, and points at the retained copy.
const vscode = require('vscode');

const SCHEME = 'tor-demo';
// The texts a person sees, in one place.
const TEXT = {
  noWorkspace: 'Open the demo workspace first (npm start opens it).',
  running: 'run_command: sh build-log.sh',
  notRetained: 'run_command returned its whole output: nothing needed keeping.',
};

function activate(context) {
  // The README says what to try: show it once the window is up (the workbench skips its own
  // startup editors in a development window).
  const readme = vscode.workspace.workspaceFolders?.[0] && vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, 'README.md');
  if (readme && vscode.window.visibleTextEditors.length === 0) void vscode.commands.executeCommand('markdown.showPreview', readme);
  const results = new Map();
  const changed = new vscode.EventEmitter();
  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => results.get(uri.path) ?? '',
    }),
    vscode.commands.registerCommand('toolOutputRecallDemo.runBuildLog', async () => {
      if (!vscode.workspace.workspaceFolders?.length) return vscode.window.showWarningMessage(TEXT.noWorkspace);
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: TEXT.running }, () =>
        vscode.lm.invokeTool('run_command', { input: { command: 'sh build-log.sh' }, toolInvocationToken: undefined }),
      );
      const text = result.content.map((part) => (typeof part.value === 'string' ? part.value : '')).join('');
      // A read-only document: what the model was given, marker and outputId included.
      const uri = vscode.Uri.from({ scheme: SCHEME, path: '/what the model got.txt' });
      results.set(uri.path, text);
      changed.fire(uri);
      await vscode.window.showTextDocument(uri, { preview: true });
      const outputId = /retained as outputId "(out_[0-9a-f]{24})"/.exec(text)?.[1];
      if (!outputId) return vscode.window.showInformationMessage(TEXT.notRetained);
      // The Inspector view beside the Retained Outputs tree: the preview, the flags, the whole copy.
      await vscode.commands.executeCommand('toolOutputRecall.showOutputInView', outputId);
    }),
  );
}

module.exports = { activate, deactivate() {} };
