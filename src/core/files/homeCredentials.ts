/**
 * The other names of a hard-linked file that are credentials in the home folder: a file in the
 * workspace with more than one link is compared, by device and inode, with the home folder's own
 * files and those of its credential folders that the sensitive-name rules flag (sensitivePaths.ts).
 * readablePath.ts refuses such a file under any name.
 */
import { promises as fs, type Dirent } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { basenameOf, credentialConfigName, DEFAULT_SENSITIVE_PATTERNS, fold, isSensitivePath } from './sensitivePaths';

/**
 * The folders of the home folder where credentials live, as DEFAULT_SENSITIVE_PATTERNS names them
 * (the `.ssh*` folders, `.ssh.bak` with `.ssh`, are found by listing the home folder). With the
 * home folder's own files, these are where `homeCredentialNames` looks for a file's other names.
 */
export const HOME_CREDENTIAL_FOLDERS: readonly string[] = Object.freeze([
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gh',
  '.config/gcloud',
  'AppData/Roaming/gcloud',
]);
/** How deep below a credential folder to look (gcloud's `legacy_credentials/<account>/adc.json` is 3). */
const HOME_SCAN_DEPTH = 3;
/** Bounds on the look, so that it stays milliseconds in any home folder: entries listed per folder and in all, names compared. */
const HOME_SCAN_LIST = 2000;
const HOME_SCAN_ENTRIES = 10_000;
const HOME_SCAN_NAMES = 2000;

/** A file's identity: its device and inode (bigints, exact for Windows' 64-bit file ids). */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/**
 * The names, among the home folder's credential files, of the file `identity` is. Looked at: the
 * home folder's own files, then the files in its `.ssh*` folders and HOME_CREDENTIAL_FOLDERS (to
 * HOME_SCAN_DEPTH, shallow first), each folder found in any case (`.AWS` as well as `.aws`); of
 * those, the ones `patterns` flag or that are credential config files (`.npmrc` …) are compared by
 * device and inode. A link there is followed (a dotfile manager's `~/.npmrc` link to
 * `~/dotfiles/npmrc` names the same file). Empty when none is the file, or the home folder is not
 * an absolute path or cannot be listed. The caller decides with `sensitiveVerdict` on what is
 * found, so the rules (the content check of `.npmrc` included) judge these names as they judge the
 * path read.
 */
export async function homeCredentialNames(
  identity: FileIdentity,
  patterns: readonly string[] = DEFAULT_SENSITIVE_PATTERNS,
  home: string = os.homedir(),
): Promise<string[]> {
  if (!path.isAbsolute(home)) return []; // no home folder (a relative one would be the working folder)
  let listed = 0;
  const listings = new Map<string, Promise<Dirent[]>>();
  const list = (folder: string): Promise<Dirent[]> => {
    let listing = listings.get(folder);
    if (!listing) {
      listing = fs
        .readdir(folder, { withFileTypes: true })
        .catch(() => [])
        .then((entries) => {
          const kept = entries.slice(0, Math.min(HOME_SCAN_LIST, Math.max(0, HOME_SCAN_ENTRIES - listed)));
          listed += kept.length;
          return kept;
        });
      listings.set(folder, listing);
    }
    return listing;
  };
  /** The sub-folders of `folders` whose folded name `accept`s. */
  const subfolders = async (folders: string[], accept: (folded: string) => boolean): Promise<string[]> => {
    const found: string[] = [];
    for (const folder of folders) {
      for (const entry of await list(folder)) {
        if ((entry.isDirectory() || entry.isSymbolicLink()) && accept(fold(entry.name))) found.push(path.join(folder, entry.name));
      }
    }
    return found;
  };
  const folders = new Set(await subfolders([home], (name) => name.startsWith('.ssh')));
  for (const folder of HOME_CREDENTIAL_FOLDERS) {
    let reached = [home];
    for (const segment of folder.split('/')) reached = await subfolders(reached, (name) => name === fold(segment));
    for (const each of reached) folders.add(each);
  }
  const candidates: string[] = [];
  const consider = (file: string): void => {
    if (isSensitivePath(file, patterns).sensitive || credentialConfigName(basenameOf(file)) !== undefined) candidates.push(file);
  };
  // The home folder's own files (.netrc, .git-credentials, .npmrc …) first, then the folders breadth
  // first, so that a folder full of files (gcloud's logs) cannot crowd them out of HOME_SCAN_NAMES.
  for (const entry of await list(home)) if (!entry.isDirectory()) consider(path.join(home, entry.name));
  let level = [...folders].map((folder): [string, number] => [folder, 1]);
  while (level.length > 0) {
    const next: [string, number][] = [];
    for (const [folder, depth] of level) {
      for (const entry of await list(folder)) {
        const full = path.join(folder, entry.name);
        if (!entry.isDirectory()) consider(full);
        else if (depth < HOME_SCAN_DEPTH) next.push([full, depth + 1]);
      }
    }
    level = next;
  }
  const found: string[] = [];
  const compared = candidates.slice(0, HOME_SCAN_NAMES);
  for (let i = 0; i < compared.length; i += 64) {
    const batch = compared.slice(i, i + 64);
    const stats = await Promise.all(batch.map((file) => fs.stat(file, { bigint: true }).catch(() => undefined)));
    stats.forEach((each, j) => {
      if (each?.isFile() && each.dev === identity.dev && each.ino === identity.ino) found.push(batch[j]);
    });
  }
  return found;
}
