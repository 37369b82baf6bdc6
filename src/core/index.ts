/**
 * The engine of Tool Output Recall, free of VS Code: bounded capture, retained copies in a sql.js
 * session file, a UTF-8 byte pager, search, and head+tail previews. Bundled as dist/core.js.
 */
export { RecallError, isRecallError, describeError, type RecallErrorCode } from './errors';
export { DEFAULT_LIMITS, KiB, MiB, type Limits } from './limits';
export { SessionStore } from './store/sessionStore';
export { openStore } from './workers/stores';
export type { OpenStoreOptions } from './store/storeOptions';
export {
  openWorkerStore,
  WorkerStore,
  DEFAULT_SEARCH_TIMEOUT_MS,
  type WorkerStoreOptions,
  type WorkerRetainOptions,
  type WorkerSearchOptions,
} from './workers/workerClient';
export { listSessions, sessionFile, sessionFiles, deleteSessionFiles, type SessionFileInfo } from './store/sessionFiles';
export {
  captureCommand,
  type RunCommandOptions,
  type CommandResult,
  type StreamReport,
  type CaptureLimits,
} from './capture/captureCommand';
export { HeadTailBuffer } from './capture/headTailBuffer';
export { capBytes, type CappedBytes } from './bytes';
export { previewHeadTail, hasImportantTail, MIN_PREVIEW_BUDGET, type Preview, type PreviewOptions, type PreviewKind } from './preview';
export { isUnitBoundary, boundaryAtOrBefore, boundaryAtOrAfter, decodeUtf8 } from './utf8';
export { compileSearch, searchBytes, type CompiledSearch } from './search';
// The tools' result texts, as the model reads them (the evidence bench drives them).
export { runCommandTool, runCommand, type RunCommandInput, type RunCommandContext, type RunCommandResult } from './tools/runCommand';
export { searchToolOutputText, type SearchToolOutputInput } from './tools/searchToolOutput';
export { readToolOutputText, type ReadToolOutputInput } from './tools/readToolOutput';
export { scanNotable } from './notable/scanner';
// Every session's outputs and the tools as a front end runs them (the cross-session bench and the evidence bench drive them).
export {
  OutputCatalog,
  type CatalogOptions,
  type SessionFolder,
  type AcrossOptions,
  type ListQuery,
  type ListPage,
} from './catalog/outputCatalog';
export { invokeTool, type ToolRun } from './tools/registry';
export type { ToolContext } from './tools/toolSpec';
export { resolveSettings, type RecallSettings } from './settings';
export { settingSchema } from './manifest';
export { SessionAgentNote } from './store/sessionAgent';
export type * from './types';
export * from './files';
export * as history from './history';
