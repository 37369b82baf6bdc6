/**
 * Which file `read_file_page` may read: the path the model gave, resolved (symlinks too) and checked
 * against the read policy. Kept free of VS Code (the tool passes the workspace folders in) so the
 * policy and its refusals are unit-tested.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecallError } from '../errors';
import { READ_FILE_PAGE_TOOL } from '../toolNames';
import { isSensitiveFile } from './sensitivePaths';
import { isChatSpillFile } from './spillFiles';

export interface ReadPolicy {
  /** The workspace folders (file system paths); relative paths start at the first, else at the home folder. */
  folders: readonly string[];
  /** The user's setting toolOutputRecall.readFilePage.allowOutsideWorkspace. */
  allowOutsideWorkspace: boolean;
  /** Patterns of files never read (toolOutputRecall.readFilePage.sensitivePatterns). */
  sensitivePatterns: readonly string[];
}

/**
 * The real path of `requested`, or a RecallError: INVALID_ARGUMENT (not a path), NOT_FOUND, or
 * REFUSED for a file outside the workspace folders (unless allowed, or a chat spill file) or a sensitive file. Both
 * checks use the path after resolving symlinks, so a link inside the workspace cannot reach a
 * file outside it or a credential; the sensitive check also looks at the path as given.
 */
export async function resolveReadablePath(requested: unknown, policy: ReadPolicy, tool: string = READ_FILE_PAGE_TOOL): Promise<string> {
  if (typeof requested !== 'string' || requested.trim() === '') {
    throw new RecallError('INVALID_ARGUMENT', 'path must be a file path, absolute or relative to the first workspace folder.');
  }
  const { folders } = policy;
  const expanded = requested.startsWith('~/') ? path.join(os.homedir(), requested.slice(2)) : requested;
  const absolute = path.resolve(folders[0] ?? os.homedir(), expanded);
  const real = await fs.realpath(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new RecallError(
        'NOT_FOUND',
        `No file at ${absolute}. Check the path (relative paths start at ${folders[0] ?? 'the home folder'}).`,
      );
    throw error;
  });
  if (!policy.allowOutsideWorkspace) {
    const realFolders = await Promise.all(folders.map((folder) => fs.realpath(folder).catch(() => folder)));
    const inside = realFolders.some((folder) => real === folder || real.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep));
    // Outside the workspace only the files VS Code's chat writes for oversized tool results (spillFiles.ts).
    if (!inside && !(await isChatSpillFile(real))) {
      throw new RecallError(
        'REFUSED',
        `${requested} resolves to ${real}, outside the workspace folders; ${tool} does not read there (only the files a chat saves oversized tool results to). Use a file inside the workspace, or ask the user to allow it with the setting toolOutputRecall.readFilePage.allowOutsideWorkspace.`,
      );
    }
  }
  for (const candidate of new Set([absolute, real])) {
    const verdict = await isSensitiveFile(candidate, policy.sensitivePatterns);
    if (verdict.sensitive) {
      throw new RecallError(
        'REFUSED',
        `${requested} is a sensitive file (${verdict.reason ?? `matches "${verdict.pattern}"`}); ${tool} does not read credentials. Ask the user for the specific non-secret value you need.`,
      );
    }
  }
  return real;
}
