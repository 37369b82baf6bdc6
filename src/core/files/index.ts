/** Workspace files for the model: the `read_file_page` pager, its read policy and the sensitive-path guard. */
export { readFilePage, MAX_FILE_PAGE_BYTES, SCAN_CHUNK_BYTES, CHEAP_COUNT_BYTES, type FilePage, type FilePageOptions } from './filePager';
export { READ_FILE_PAGE_TOOL } from '../toolNames';
export { resolveReadablePath, type ReadPolicy } from './readablePath';
export { searchFile, FILE_WINDOW_BYTES, OVERLAP_BYTES, type FileSearchOptions } from './fileSearch';
export { isChatSpillFile, SPILL_FILE_NAME } from './spillFiles';
export type { SearchOutcome } from '../search/protocol';
export { clearLineIndexCache, lineIndexStats, LINE_INDEX_STRIDE } from './lineIndex';
export {
  isSensitivePath,
  isSensitiveFile,
  matchesPathPattern,
  findCredentialKey,
  pathSegments,
  DEFAULT_SENSITIVE_PATTERNS,
  CREDENTIAL_CONFIG_FILES,
  type SensitivityResult,
  type SensitivityOptions,
  type SensitiveFileOptions,
} from './sensitivePaths';
