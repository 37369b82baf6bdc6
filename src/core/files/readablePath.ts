/**
 * Which files `read_file_page` and `search_tool_output {path}` may read: the path the model gave,
 * opened once (openedFile.ts), and the read policy checked on what the descriptor is. Kept free of
 * VS Code (the tool passes the workspace folders in) so the policy and its refusals are unit-tested.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import { RecallError } from '../errors';
import { READ_FILE_PAGE_TOOL } from '../toolNames';
import { openRegularFile, type OpenedFile } from './openedFile';
import { sensitiveVerdict } from './sensitivePaths';
import { isSavedToolResult } from './spillFiles';

export interface ReadPolicy {
  /** The workspace folders (file system paths); relative paths start at the first, else at the home folder. */
  folders: readonly string[];
  /** The user's setting toolOutputRecall.readFilePage.allowOutsideWorkspace. */
  allowOutsideWorkspace: boolean;
  /** Patterns of files never read (toolOutputRecall.readFilePage.sensitivePatterns). */
  sensitivePatterns: readonly string[];
}

/**
 * `requested`, open for reading (read it only through the returned handle, then close it), or a
 * RecallError: INVALID_ARGUMENT (not a path; not a regular file), NOT_FOUND, or REFUSED for a file
 * under /proc, /sys or /dev, outside the workspace folders (unless allowed, or a file an agent saved an oversized tool result to),
 * hard-linked outside them, or sensitive. The checks run on the descriptor's real path, so a link
 * (or a folder swapped for one) cannot lead the read to a file outside the workspace or to a
 * credential; the sensitive check also looks at the path as given.
 */
export async function openReadableFile(requested: unknown, policy: ReadPolicy, tool: string = READ_FILE_PAGE_TOOL): Promise<OpenedFile> {
  if (typeof requested !== 'string' || requested.trim() === '') {
    throw new RecallError('INVALID_ARGUMENT', 'path must be a file path, absolute or relative to the first workspace folder.');
  }
  const { folders } = policy;
  const expanded = requested.startsWith('~/') ? path.join(os.homedir(), requested.slice(2)) : requested;
  const absolute = path.resolve(folders[0] ?? os.homedir(), expanded);
  const hint = ` (relative paths start at ${folders[0] ?? 'the home folder'})`;
  const opened = await openRegularFile(absolute, { shown: requested, tool, hint });
  try {
    await checkPolicy(opened, absolute, requested, policy, tool);
    return opened;
  } catch (error) {
    await opened.handle.close();
    throw error;
  }
}

async function checkPolicy(opened: OpenedFile, absolute: string, requested: string, policy: ReadPolicy, tool: string): Promise<void> {
  const real = opened.path;
  const realFolders = await Promise.all(policy.folders.map((folder) => fs.realpath(folder).catch(() => folder)));
  const inside = realFolders.some((folder) => real === folder || real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep));
  if (!inside) {
    // Outside the workspace only the files VS Code's chat and Claude Code write for oversized tool results (spillFiles.ts).
    if (!policy.allowOutsideWorkspace && !(await isSavedToolResult(real))) {
      throw new RecallError(
        'REFUSED',
        `${requested} resolves to ${real}, outside the workspace folders; ${tool} does not read there (only the files a chat saves oversized tool results to). Use a file inside the workspace, or ask the user to allow it with the setting toolOutputRecall.readFilePage.allowOutsideWorkspace.`,
      );
    }
    // A file's other names are not known: one of them may be a credential (a hard link to
    // ~/.aws/credentials named like a spill file). Inside the workspace see the README for why not.
    if (opened.stats.nlink > 1) {
      throw new RecallError(
        'REFUSED',
        `${requested} resolves to ${real}, a file with ${opened.stats.nlink} names (hard links) outside the workspace folders; ${tool} does not read such a file there, as another of its names may be a credential. Ask the user to copy what you need into the workspace.`,
      );
    }
  }
  const verdict = await sensitiveVerdict([absolute, real], opened.handle, policy.sensitivePatterns);
  if (verdict.sensitive) {
    throw new RecallError(
      'REFUSED',
      `${requested} is a sensitive file (${verdict.reason ?? `matches "${verdict.pattern}"`}); ${tool} does not read credentials. Ask the user for the specific non-secret value you need.`,
    );
  }
}
