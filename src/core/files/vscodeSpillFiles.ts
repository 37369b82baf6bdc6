/**
 * The files VS Code 1.139.1 itself writes for oversized results in the Local harness (the extension
 * host), which `read_file_page` and `search_tool_output {path}` read outside the workspace when the
 * front end names the folders (`SpillRoots`): the MCP server knows none of them, and a folder the
 * extension cannot compute exactly is left out. Read in code-server 4.139.1's shipped code:
 *
 * - The workbench's terminal tool (`run_in_terminal`, out/vs/code/browser/workbench/workbench.js,
 *   class `LargeOutputFileWriter`): output over 20,000 characters is written whole to
 *   `joinPath(environmentService.cacheHome, "copilot-terminal-output", "copilot-terminal-output-" +
 *   generateUuid() + ".txt")` (crypto.randomUUID: lower-case v4) and deleted when the session ends.
 *   `cacheHome` is the workbench's (the window's), so the file is on the machine the window runs on:
 *     - desktop (AbstractNativeEnvironmentService, not overridden by the desktop workbench):
 *       `URI.file(userDataPath)`, the user-data folder (`~/.config/Code`, `~/Library/Application
 *       Support/Code`, `%APPDATA%\Code`, a portable folder, or `--user-data-dir`);
 *     - the web workbench (BrowserWorkbenchEnvironmentService): `joinPath(userRoamingDataHome,
 *       "caches")`; code-server makes `userRoamingDataHome` `vscode-remote:<its --user-data-dir>/User`,
 *       a folder on the server (VS Code's own `serve-web` keeps it in the browser's IndexedDB, where no
 *       process can read it).
 *   The extension host learns the user-data folder from `context.globalStorageUri`, which is
 *   `<user-data>/User/globalStorage/<extension id>` (the default profile's, whatever the profile).
 * - Copilot Chat (lib/vscode/extensions/copilot, copilot-chat 0.67.0, `ChatDiskSessionResources`):
 *   a tool result over 8,192 characters (`chat.agent.largeToolResultsToDisk.*`) is written to
 *   `joinPath(context.storageUri, "chat-session-resources", s(sessionId), s(toolCallId))`, as
 *   `content.txt`, or `content.json` (pretty-printed) with `schema.json` beside it, where `s`
 *   replaces every character outside `[A-Za-z0-9_.-]` with "_". Its `storageUri` is
 *   `<workspace storage>/<workspace id>/GitHub.copilot-chat` (the extension id as declared), a sibling
 *   of this extension's own `storageUri`.
 *
 * Only those names at exactly that depth are allowed, never the folders' other files. The caller
 * passes the real path of the opened file (symlinks resolved); the roots are resolved here too.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Where the front end says VS Code writes oversized results (absolute paths on this machine). */
export interface SpillRoots {
  /** Folders that hold the terminal tool's `copilot-terminal-output-<uuid>.txt` files directly (`<cacheHome>/copilot-terminal-output`). */
  readonly terminalOutput?: readonly string[];
  /** Copilot Chat's `chat-session-resources` folders: `<session>/<tool call>/content.txt|content.json|schema.json` below each. */
  readonly chatSessionResources?: readonly string[];
}

/** The terminal tool's file name: `copilot-terminal-output-` and a UUID. */
export const TERMINAL_OUTPUT_NAME = /^copilot-terminal-output-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.txt$/i;
/** The folder (in cacheHome) the terminal tool writes to. */
export const TERMINAL_OUTPUT_FOLDER = 'copilot-terminal-output';
/** The files Copilot Chat writes for one tool call. */
export const CHAT_RESOURCE_FILES: readonly string[] = ['content.txt', 'content.json', 'schema.json'];
/** A session or tool-call folder: what Copilot Chat's sanitising leaves (`.` and `..` are never real folder names). */
const CHAT_RESOURCE_FOLDER = /^(?!\.\.?$)[A-Za-z0-9_.-]+$/;
/** Copilot Chat's extension id, as its package.json declares it (publisher "GitHub", name "copilot-chat"). */
export const COPILOT_CHAT_ID = 'GitHub.copilot-chat';
export const CHAT_RESOURCES_FOLDER = 'chat-session-resources';

/**
 * Whether `real` (a path with symlinks resolved) is a file VS Code wrote for an oversized result in
 * one of `roots`: a terminal output file directly in a terminal folder, or a chat resource file two
 * folders below a `chat-session-resources` folder.
 */
export async function isVsCodeSpillFile(real: string, roots: SpillRoots | undefined): Promise<boolean> {
  if (!roots) return false;
  const name = path.basename(real);
  if (TERMINAL_OUTPUT_NAME.test(name) && (await isOneOf(path.dirname(real), roots.terminalOutput))) return true;
  if (!CHAT_RESOURCE_FILES.includes(name)) return false;
  const toolCall = path.dirname(real);
  const session = path.dirname(toolCall);
  return (
    CHAT_RESOURCE_FOLDER.test(path.basename(toolCall)) &&
    CHAT_RESOURCE_FOLDER.test(path.basename(session)) &&
    (await isOneOf(path.dirname(session), roots.chatSessionResources))
  );
}

/** Whether `folder` (a real path) is one of `roots` once their symlinks are resolved (ignoring case on Windows, as its file systems do). */
async function isOneOf(folder: string, roots: readonly string[] | undefined): Promise<boolean> {
  for (const root of roots ?? []) {
    const real = await fs.realpath(root).catch(() => root);
    if (process.platform === 'win32' ? real.toLowerCase() === folder.toLowerCase() : real === folder) return true;
  }
  return false;
}

/** What the extension host knows about where VS Code keeps its files (see `vscodeSpillRoots`). */
export interface VsCodeStorage {
  /** `context.globalStorageUri.fsPath` when it is a `file:` URI. */
  globalStorage?: string;
  /** `context.storageUri.fsPath` when it is a `file:` URI (none in an empty window). */
  workspaceStorage?: string;
  /** The workbench is VS Code for the web (`vscode.env.uiKind === UIKind.Web`), e.g. code-server. */
  web: boolean;
  /**
   * The workbench's files are on this machine: a local window, or this extension runs in the window's
   * own extension host (kind UI). In a remote desktop window (SSH, WSL, a container) the terminal
   * tool writes to the desktop's disk, out of this host's reach. The web workbench writes through the
   * server (code-server), where the extension host runs.
   */
  local: boolean;
}

/**
 * The folders VS Code writes oversized results to, computed from what the extension host knows (the
 * module comment gives the layout). A folder is left out when the layout is not the expected one.
 */
export function vscodeSpillRoots(storage: VsCodeStorage): SpillRoots {
  const terminalOutput: string[] = [];
  const user = userFolderOf(storage.globalStorage);
  if (user !== undefined && (storage.web || storage.local)) {
    const cacheHome = storage.web ? path.join(user, 'caches') : path.dirname(user);
    terminalOutput.push(path.join(cacheHome, TERMINAL_OUTPUT_FOLDER));
  }
  const chatSessionResources =
    storage.workspaceStorage === undefined
      ? []
      : [path.join(path.dirname(storage.workspaceStorage), COPILOT_CHAT_ID, CHAT_RESOURCES_FOLDER)];
  return { terminalOutput, chatSessionResources };
}

/** `<user-data>/User` from `<user-data>/User/globalStorage/<extension id>`, or undefined for any other shape. */
function userFolderOf(globalStorage: string | undefined): string | undefined {
  if (globalStorage === undefined || !path.isAbsolute(globalStorage)) return undefined;
  const globalStorageHome = path.dirname(globalStorage);
  const user = path.dirname(globalStorageHome);
  return path.basename(globalStorageHome) === 'globalStorage' && path.basename(user) === 'User' ? user : undefined;
}
