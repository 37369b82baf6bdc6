/**
 * "Connect Other Agents…": installs the stable copy of the MCP server (install.ts) and, after
 * showing exactly what it will write and asking, adds it to Claude Code (`.mcp.json`, and its hook
 * in `.claude/settings.json`), Codex (`~/.codex/config.toml`), Cursor (`.cursor/mcp.json`), Gemini
 * CLI (`.gemini/settings.json`: server and hook), Qwen Code (`.qwen/settings.json`: server and hook),
 * GitHub Copilot CLI (`~/.copilot/mcp-config.json`, and its hook in
 * `.github/hooks/tool-output-recall.json`), OpenCode (`opencode.json`), Kilo Code (`kilo.json`) and
 * Cline (`~/.cline/data/settings/cline_mcp_settings.json`), merged with what is there.
 *
 * The person picks the agents (those found on this machine, by a command on PATH or their folder in
 * the home folder, and writing only into the folder are checked; Codex, Copilot CLI and Cline, whose
 * server files are global, are not), then a modal lists every file and entry. Its "Show Changes" opens the diffs
 * (changesPreview.ts) and asks again, in the changes editor's title and a notification, not in a modal:
 * a modal over the diff would keep the person from reading it.
 *
 * For scripts and tests the command takes one argument that skips every question:
 * `{ confirm: false, agents?: AgentId[], folder?: string }` (folder: a workspace folder's path;
 * agents: default all of them). It resolves with what it did (ConnectResult), or undefined when the
 * person cancelled.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_IDS, AGENTS, CONFIG_KEY, agentTargets, type AgentId, type AgentTarget } from '../../core/agents/agents';
import { findAgents, onPath, type AgentFound } from '../../core/agents/found';
import { installServer, serverBuild } from '../../core/agents/install';
import { planFiles, writePlanned, type PlannedFile, type WriteOutcome } from '../../core/agents/plan';
import { PACKAGE_VERSION } from '../../core/manifest';
import type { ChangesPreview } from './changesPreview';

export interface ConnectOptions {
  confirm?: boolean;
  agents?: AgentId[];
  folder?: string;
}

export interface ConnectResult {
  launcher: string;
  build: string;
  files: WriteOutcome[];
}

/** Where the stable copy lives: the extension's global storage, which outlives updates. */
export const serverRoot = (context: vscode.ExtensionContext): string => path.join(context.globalStorageUri.fsPath, 'mcp');

export async function connectAgents(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  preview: ChangesPreview,
  options: ConnectOptions = {},
): Promise<ConnectResult | undefined> {
  const quiet = options.confirm === false;
  const folder = options.folder ?? (await pickFolder(quiet));
  if (!folder) return undefined;
  const agents = options.agents ?? (quiet ? [...AGENT_IDS] : await pickAgents(folder));
  if (!agents?.length) return undefined;
  for (const id of agents)
    if (!AGENT_IDS.includes(id)) throw new Error(vscode.l10n.t('Unknown agent "{0}": expected one of {1}.', id, AGENT_IDS.join(', ')));

  const source = path.join(context.extensionUri.fsPath, 'dist');
  const root = serverRoot(context);
  const build = await serverBuild(source, root, PACKAGE_VERSION);
  const workspace = await fs.realpath(folder);
  const node = 'node';
  const planned = await planFiles(agents.flatMap((id) => agentTargets(id, { node, launcher: build.launcher, workspace })));
  const nodeFound = await onPath(node);

  if (!quiet && !(await confirm(planned, build.launcher, build.build, nodeFound, preview))) return undefined;

  const installed = await installServer(source, root, PACKAGE_VERSION);
  log.info(
    `mcp: server build ${installed.build} at ${installed.dir}${installed.copied ? ' (copied)' : ''}; launcher ${installed.launcher}` +
      (installed.removed.length ? `; removed old builds ${installed.removed.join(', ')}` : ''),
  );
  const files = await writePlanned(planned);
  for (const outcome of files) {
    const what =
      outcome.outcome === 'written' ? outcome.change : outcome.outcome === 'unchanged' ? 'unchanged' : `not written (${outcome.why})`;
    log.info(`mcp: ${outcome.agent} ${outcome.file}: ${what}`);
  }
  if (!quiet) report(files);
  return { launcher: installed.launcher, build: installed.build, files };
}

/** Refreshes an installed copy after the extension updated: the launcher then runs this version's build. */
export async function refreshInstalledServer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Promise<void> {
  const root = serverRoot(context);
  if (!(await fs.stat(path.join(root, 'tool-output-recall-mcp.js')).catch(() => undefined))) return;
  const source = path.join(context.extensionUri.fsPath, 'dist');
  const installed = await installServer(source, root, PACKAGE_VERSION);
  if (installed.relinked) log.info(`mcp: the installed server now runs build ${installed.build}`);
}

async function pickFolder(quiet: boolean): Promise<string | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    throw new Error(
      vscode.l10n.t('Open a folder first: the server works in a workspace folder, and Claude Code and Cursor keep their servers in it.'),
    );
  }
  if (folders.length === 1 || quiet) return folders[0].uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Connect the agents to which folder?') });
  return picked?.uri.fsPath;
}

/**
 * The agents, each with the files it gets and whether it was found on this machine (its detail).
 * Those found whose files are in the folder are checked; an agent with a global file (Codex's
 * config.toml, Copilot CLI's mcp-config.json, Cline's settings, read in every project) is not, and
 * says so.
 */
async function pickAgents(folder: string): Promise<AgentId[] | undefined> {
  const found = await findAgents();
  const items = AGENT_IDS.map((id) => {
    const targets = agentTargets(id, { node: 'node', launcher: '', workspace: folder });
    const global = targets.some((t) => t.scope === 'user');
    const note = pickerNote(id);
    const where = whereWritten(targets, folder);
    const how = found.get(id);
    return {
      id,
      label: AGENTS[id].name,
      description: note ? `${where} ${note}` : where,
      detail: foundText(how),
      picked: how !== undefined && !global,
    };
  });
  const names = AGENT_IDS.filter((id) => found.has(id)).map((id) => AGENTS[id].name);
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Connect Other Agents'),
    placeHolder: names.length
      ? vscode.l10n.t(
          'Found on this machine: {0}. Check the agents to give the server (nothing is written before you confirm)',
          listed(names),
        )
      : vscode.l10n.t('No agent found on this machine. Check the agents to give the server (nothing is written before you confirm)'),
    canPickMany: true,
  });
  return picked?.map((item) => item.id);
}

/**
 * Where an agent's entries go, for the picker: "in this folder: .mcp.json, …", "global:
 * ~/.codex/config.toml …", or both (Copilot CLI: its server global, its hook in the folder). A
 * file two entries share is named once.
 */
function whereWritten(targets: readonly AgentTarget[], folder: string): string {
  const files = (scope: AgentTarget['scope']) => [...new Set(targets.filter((t) => t.scope === scope).map((t) => t.file))];
  const user = files('user');
  const here = files('workspace').map((file) => path.relative(folder, file).split(path.sep).join('/'));
  if (!user.length) return vscode.l10n.t('in this folder: {0}', here.join(', '));
  const shown = user.map((file) => inHome(file));
  const global = shown.every((s) => s !== undefined)
    ? vscode.l10n.t('global: {0} in your home folder, for every project', shown.join(', '))
    : vscode.l10n.t('global: {0}, for every project', user.join(', '));
  return here.length ? vscode.l10n.t('{0}; in this folder: {1}', global, here.join(', ')) : global;
}

/** How an agent was found on this machine, for the picker: "found: `opencode` on PATH", "found: ~/.cline", or not found. */
function foundText(how: AgentFound | undefined): string {
  if (!how) return vscode.l10n.t('not found on this machine (no command on PATH, no folder in your home folder)');
  if ('command' in how) return vscode.l10n.t('found: {0} on PATH', how.command);
  return vscode.l10n.t('found: {0}', inHome(how.folder) ?? how.folder);
}

/** What the person must know before picking an agent: when its hook runs at all. */
function pickerNote(id: AgentId): string | undefined {
  switch (id) {
    case 'gemini-cli':
      return vscode.l10n.t('(Gemini CLI runs the hook only in a folder it trusts)');
    case 'copilot-cli':
      return vscode.l10n.t('(Copilot CLI runs the hook only in a folder it trusts)');
    default:
      return undefined;
  }
}

/** What a hook does for its agent, and what the person must do for it to run, for the confirmation. */
function hookNote(id: AgentId): string | undefined {
  switch (id) {
    case 'claude-code':
      return vscode.l10n.t(
        '(The hook hands the server the whole output of a Bash command too large for Claude Code to show, read from the file Claude Code saves it to, so it is kept in the session with an outputId, and tells the model how to read and search it. With no server of Claude Code running, it points the model at that file instead.)',
      );
    case 'gemini-cli':
      return vscode.l10n.t(
        '(The hook hands the server each large run_shell_command output whole, before Gemini CLI cuts it, and tells the model how to search it. Gemini CLI runs hooks only in a trusted folder: trust this folder in Gemini CLI, or start it with GEMINI_CLI_TRUST_WORKSPACE=true.)',
      );
    case 'qwen-code':
      return vscode.l10n.t(
        "(The hook hands the server each large run_shell_command output whole and tells the model how to search it. If Qwen Code's folder trust is on, it runs the hooks of this folder only once the folder is trusted.)",
      );
    case 'copilot-cli':
      return vscode.l10n.t(
        '(The hook hands the server the whole output of a bash command too large for Copilot CLI to show, read from the file Copilot CLI saves it to, and tells the model how to search it. Copilot CLI loads the hooks of a repository only in a trusted folder: answer its trust question, or for copilot -p add the folder to "trustedFolders" in ~/.copilot/config.json. It reads .github/hooks at the root of the Git repository.)',
      );
    case 'opencode':
    case 'kilo-code':
      return vscode.l10n.t(
        '(The plugin hands the server the whole output of a bash command too large for {0} to show, read from the file {0} saves it to, so it is kept in the session with an outputId, and adds to what the model is sent how to read and search it. {0} loads the plugins of this folder when it starts.)',
        AGENTS[id].name,
      );
    default:
      return undefined;
  }
}

/** `~/…` for a file in the home folder, else undefined. */
function inHome(file: string): string | undefined {
  const home = process.env.HOME || os.homedir();
  return file.startsWith(home + path.sep) ? `~/${path.relative(home, file).split(path.sep).join('/')}` : undefined;
}

/**
 * The modal listing every file and entry. "Show Changes" opens the exact diffs and asks there
 * instead (ChangesPreview.ask): the person reads the diff, then answers in its title or the notification.
 */
async function confirm(
  planned: readonly PlannedFile[],
  launcher: string,
  build: string,
  nodeFound: boolean,
  preview: ChangesPreview,
): Promise<boolean> {
  const write = vscode.l10n.t('Write');
  const show = vscode.l10n.t('Show Changes');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Connect other agents to Tool Output Recall?'),
    { modal: true, detail: describePlan(planned, launcher, build, nodeFound) },
    write,
    show,
  );
  if (choice === write) return true;
  if (choice !== show) return false;
  if (!(await preview.show(planned))) return true; // nothing changes: "writing" reports that
  const cancel = vscode.l10n.t('Cancel');
  const files = [...new Set(planned.filter((p) => p.merge.ok && p.merge.change !== 'unchanged').map((p) => displayPath(p.target.file)))];
  return preview.ask(vscode.l10n.t('Write the changes shown to {0}?', listed(files)), write, cancel);
}

/** A path as a person reads it: relative in the workspace, `~/…` in the home folder. */
function displayPath(file: string): string {
  if (vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))) return vscode.workspace.asRelativePath(file, false);
  return inHome(file) ?? file;
}

/** "a, b and c" in the display language. */
function listed(items: readonly string[]): string {
  try {
    return new Intl.ListFormat(vscode.env.language, { style: 'long', type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

function describePlan(planned: readonly PlannedFile[], launcher: string, build: string, nodeFound: boolean): string {
  const lines = [
    vscode.l10n.t('Installs the server as {0} (build {1}), which keeps working after the extension updates.', launcher, build),
  ];
  if (!nodeFound) lines.push(vscode.l10n.t('Warning: "node" is not on this PATH; the agents need Node.js 20 or later on theirs.'));
  for (const { target, merge } of planned) {
    lines.push('');
    if (!merge.ok) {
      lines.push(
        vscode.l10n.t('{agent}: {file} is left as it is: {problem}. Fix it, or add the entry by hand (docs/agents.md, "By hand").', {
          agent: target.name,
          file: target.file,
          problem: merge.problem,
        }),
      );
      continue;
    }
    const kept = merge.others.length ? vscode.l10n.t(' (keeps {0})', merge.others.join(', ')) : '';
    const hook = target.format === 'claude-hook' || target.format === 'hook' || target.format === 'plugin';
    const addsHook =
      target.format === 'plugin'
        ? vscode.l10n.t('adds a plugin for bash')
        : target.format === 'claude-hook'
          ? vscode.l10n.t('adds a PostToolUse hook for Bash')
          : target.hook?.tools === '*'
            ? vscode.l10n.t('adds a {0} hook, for every tool', target.hook.event)
            : vscode.l10n.t('adds a {0} hook for {1}', target.hook?.event ?? '', target.hook?.tools ?? '');
    const what = {
      create: vscode.l10n.t('creates the file'),
      add: hook ? addsHook : vscode.l10n.t('adds "{0}"', CONFIG_KEY),
      replace:
        target.format === 'plugin'
          ? vscode.l10n.t('replaces its Tool Output Recall plugin')
          : hook
            ? vscode.l10n.t('replaces its Tool Output Recall hook')
            : vscode.l10n.t('replaces its "{0}" entry', CONFIG_KEY),
      unchanged: vscode.l10n.t('already has this entry; nothing to write'),
    }[merge.change];
    lines.push(`${target.name}: ${target.file}: ${what}${kept}`);
    const note = hook && merge.change !== 'unchanged' ? hookNote(target.id) : undefined;
    if (note) lines.push(note);
    if (merge.change !== 'unchanged') lines.push(entryText(planned.find((p) => p.target === target)!));
    if (target.scope === 'workspace' && merge.change !== 'unchanged') {
      lines.push(vscode.l10n.t('(In the workspace: it names the launcher path of this machine, so think before committing it.)'));
    }
    if (target.scope === 'user' && merge.change !== 'unchanged') {
      lines.push(
        vscode.l10n.t(
          '(Global: {0} reads this file in every project. The entry names this folder; connecting another folder replaces it.)',
          target.name,
        ),
      );
    }
  }
  return lines.join('\n');
}

/** The entry as it appears in the file. */
function entryText({ target }: PlannedFile): string {
  // A plugin is a whole file of ours; Show Changes shows it whole.
  if (target.format === 'plugin')
    return `  ${vscode.l10n.t('the whole file: a plugin of {0} lines (Show Changes shows it)', String(target.entry.source).split('\n').length - 1)}`;
  if (target.format === 'json' && target.serversKey)
    return `  "${target.serversKey}": { "${CONFIG_KEY}": ${JSON.stringify(target.entry)} }`;
  if (target.format === 'json') return `  "${CONFIG_KEY}": ${JSON.stringify(target.entry)}`;
  if (target.format === 'claude-hook' || target.format === 'hook') {
    return `  "hooks": { "${target.hook?.event ?? 'PostToolUse'}": [${JSON.stringify(target.entry)}] }`;
  }
  return [`  [mcp_servers.${CONFIG_KEY}]`, ...Object.entries(target.entry).map(([k, v]) => `  ${k} = ${JSON.stringify(v)}`)].join('\n');
}

/**
 * What was done, one message: each agent named once (most get two entries, their server and their
 * hook), then a warning for each file left alone.
 */
function report(files: readonly WriteOutcome[]): void {
  const written = [...new Set(files.filter((f) => f.outcome === 'written').map((f) => f.agent))];
  const problems = files.filter((f): f is Extract<WriteOutcome, { outcome: 'skipped' }> => f.outcome === 'skipped');
  if (written.length) {
    void vscode.window.showInformationMessage(
      written.length === 1
        ? vscode.l10n.t('Connected {0}. Restart it (or reload its MCP servers) to start the server.', written[0])
        : vscode.l10n.t('Connected {0}. Restart them (or reload their MCP servers) to start the server.', listed(written)),
    );
  } else if (!problems.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The agents already had the server; nothing was written.'));
  }
  for (const problem of problems) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('{agent}: {file} was not written: {why}.', { agent: problem.agent, file: problem.file, why: problem.why }),
    );
  }
}
