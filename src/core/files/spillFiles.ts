/**
 * The files VS Code's chat writes for oversized tool results ("spill files"): the one kind of file
 * outside the workspace that `read_file_page` and `search_tool_output` read without the user's
 * setting, so an agent can page and search the payload instead of reasoning from a truncated preview.
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
