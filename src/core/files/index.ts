/** Workspace files for the model: the `read_file_page` pager, its read policy, the sensitive-path guard and the secret masker. */
export { readFilePage, MAX_FILE_PAGE_BYTES, SCAN_CHUNK_BYTES, CHEAP_COUNT_BYTES, type FilePage, type FilePageOptions } from './filePager';
export { READ_FILE_PAGE_TOOL } from '../toolNames';
export { openReadableFile, type ReadPolicy } from './readablePath';
export { openRegularFile, READ_FLAGS, type OpenedFile } from './openedFile';
export { maskSecrets, type SecretRange } from './secretShapes';
export { searchFile, FILE_WINDOW_BYTES, OVERLAP_BYTES, type FileSearchOptions } from './fileSearch';
export {
  isChatSpillFile,
  isClaudeToolResult,
  isOpenCodeToolOutput,
  openCodeOutputFolders,
  isSavedToolResult,
  claudeConfigDir,
  SPILL_FILE_NAME,
  CLAUDE_RESULT_NAME,
} from './spillFiles';
export {
  isVsCodeSpillFile,
  vscodeSpillRoots,
  TERMINAL_OUTPUT_NAME,
  CHAT_RESOURCE_FILES,
  type SpillRoots,
  type VsCodeStorage,
} from './vscodeSpillFiles';
export type { SearchOutcome } from '../search/protocol';
export { clearLineIndexCache, lineIndexStats, LINE_INDEX_STRIDE } from './lineIndex';
export {
  isSensitivePath,
  isSensitiveFile,
  sensitiveVerdict,
  matchesPathPattern,
  findCredentialKey,
  pathSegments,
  DEFAULT_SENSITIVE_PATTERNS,
  CREDENTIAL_CONFIG_FILES,
  type SensitivityResult,
  type SensitivityOptions,
  type SensitiveFileOptions,
} from './sensitivePaths';
