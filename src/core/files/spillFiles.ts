/**
 * The files agents write for oversized tool results: VS Code's chat ("spill files"), Claude Code
 * (its `tool-results` folders) and OpenCode / Kilo Code (their `tool-output` folders), the one kind of file outside the workspace that
 * `read_file_page` and `search_tool_output` read without the user's setting, so an agent can page and search the payload instead of reasoning from a truncated preview.
 *
 * Where the rule comes from (VS Code 1.139.1, the code-server bundle the host harness installs):
 * out/vs/platform/agentHost/node/agentHostMain.js auto-approves reads of "Copilot SDK tool-output
 * temp file"s when `mce(path, this._environmentService.tmpDir.fsPath)` holds, which is: the file's
 * parent folder is the environment's tmpDir (`tmpdir()` from "os" there), and its name matches
 *   /^(?:\d{10,}-copilot-tool-output-(?:[a-z0-9]{6}|\d+-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})|copilot-tool-output-\d{10,}-[a-z0-9]+)\.txt$/i
 * (`Lae`, tested on the base name by `BD`). The same rule is applied here, to the path after
 * resolving symlinks, so a link named like a spill file cannot reach anything else.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isVsCodeSpillFile, type SpillRoots } from './vscodeSpillFiles';

/** A spill file's base name, exactly as VS Code 1.139.1 recognises one (see above). */
export const SPILL_FILE_NAME =
  /^(?:\d{10,}-copilot-tool-output-(?:[a-z0-9]{6}|\d+-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})|copilot-tool-output-\d{10,}-[a-z0-9]+)\.txt$/i;

/** Whether `real` (a path with symlinks resolved) is a chat spill file: named like one, directly in the temp folder. */
export async function isChatSpillFile(real: string): Promise<boolean> {
  if (!SPILL_FILE_NAME.test(path.basename(real))) return false;
  const tmp = os.tmpdir();
  const realTmp = await fs.realpath(tmp).catch(() => tmp);
  return path.dirname(real) === realTmp;
}

/**
 * Claude Code's saved tool results (Claude Code 2.1.332, the native binary the client suite installs):
 * a result too large to hand the model (Bash output over its inline limit, an MCP result over 50,000
 * characters) is written to `<config>/projects/<project>/<session>/tool-results/<id>.txt` (`.json`
 * for structured content), and the model gets a short `<persisted-output>` note naming it. In its
 * code: the folder is `join(<projects folder>, <session id>, "tool-results")`, the projects folder is
 * `join(<config>, "projects", <the working directory with every character but A-Z, a-z, 0-9 made
 * "-">)`, <config> is `$CLAUDE_CONFIG_DIR`, else `~/.claude`; the file is `<id>.<txt|json>` with the
 * id's characters outside `A-Za-z0-9_-` (and a leading ".") written as `%XX`. Observed in real runs:
 * `~/.claude/projects/-root-…-ws/827ffb4e-b3d4-4267-ab44-5863d0c16af3/tool-results/bknx531nw.txt`,
 * and under `$CLAUDE_CONFIG_DIR/projects/…` with that variable set. A sanitised name longer than
 * Claude Code's limit ends in "-<hash>", still of those characters.
 */
const CLAUDE_PROJECT = /^[A-Za-z0-9-]+$/;
const CLAUDE_SESSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A saved result's base name, exactly as Claude Code 2.1.332 writes one (see above). */
export const CLAUDE_RESULT_NAME = /^[A-Za-z0-9_%-][A-Za-z0-9_.%-]*\.(?:txt|json)$/;

/** Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR` when set (absolute), else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && path.isAbsolute(dir) ? dir : path.join(os.homedir(), '.claude');
}

/**
 * Whether `real` (a path with symlinks resolved) is a result Claude Code saved: named like one, in a
 * `tool-results` folder of a session folder of a project folder of its configuration's `projects`
 * folder, exactly that deep.
 */
export async function isClaudeToolResult(real: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const folder = path.dirname(real);
  const session = path.dirname(folder);
  const project = path.dirname(session);
  if (
    !CLAUDE_RESULT_NAME.test(path.basename(real)) ||
    path.basename(folder) !== 'tool-results' ||
    !CLAUDE_SESSION.test(path.basename(session)) ||
    !CLAUDE_PROJECT.test(path.basename(project))
  )
    return false;
  const projects = path.join(claudeConfigDir(env), 'projects');
  const realProjects = await fs.realpath(projects).catch(() => projects);
  return path.dirname(project) === realProjects;
}

/**
 * OpenCode 1.18.33 (and Kilo Code 7.7.9, its fork) save a tool output they cut (past 2,000 lines or
 * 51,200 bytes) to `<data>/opencode/tool-output/tool_<id>` (`<data>/kilo/…`), kept 7 days; <data> is
 * `$XDG_DATA_HOME`, else `~/.local/share` (their code: `join(Path.data, "tool-output")`, the file
 * `Identifier.ascending("tool")`: "tool_", 12 hex digits of time, 14 base-62 characters; seen in a
 * real run: `tool_24d3a916e001F0COfQwwSmr6qJ`).
 */
export const OPENCODE_OUTPUT_NAME = /^tool_[0-9a-f]{12}[0-9A-Za-z]{14}$/;
const OPENCODE_APPS = ['opencode', 'kilo'] as const;

/** The folders OpenCode and Kilo Code save cut tool outputs in. */
export function openCodeOutputFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const data = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return OPENCODE_APPS.map((app) => path.join(data, app, 'tool-output'));
}

/** Whether `real` (a path with symlinks resolved) is an output OpenCode or Kilo Code saved: named like one, directly in its folder. */
export async function isOpenCodeToolOutput(real: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!OPENCODE_OUTPUT_NAME.test(path.basename(real))) return false;
  for (const folder of openCodeOutputFolders(env)) {
    if (path.dirname(real) === (await fs.realpath(folder).catch(() => folder))) return true;
  }
  return false;
}

/**
 * Whether `real` is a file an agent saved an oversized tool result to: VS Code's agent host (the
 * temp folder), Claude Code, OpenCode and Kilo Code, or, in the folders the front end names (`roots`,
 * vscodeSpillFiles.ts), VS Code's terminal tool and Copilot Chat.
 */
export async function isSavedToolResult(real: string, roots?: SpillRoots): Promise<boolean> {
  return (
    (await isChatSpillFile(real)) ||
    (await isClaudeToolResult(real)) ||
    (await isOpenCodeToolOutput(real)) ||
    (await isVsCodeSpillFile(real, roots))
  );
}
