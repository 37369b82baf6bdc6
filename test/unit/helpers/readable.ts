import { openReadableFile, type ReadPolicy } from '../../../src/core/files/readablePath';

/** The real path the read policy lets a tool open for `requested` (opened, checked, closed), or its RecallError. */
export async function readablePath(requested: unknown, policy: ReadPolicy, tool?: string): Promise<string> {
  const opened = await openReadableFile(requested, policy, tool);
  await opened.handle.close();
  return opened.path;
}

/** A spill file's name as VS Code 1.139.1 writes them (`copilot-tool-output-<ms>-<id>.txt`), unique per call. */
export const spillName = (): string =>
  `copilot-tool-output-${Date.now()}${Math.floor(Math.random() * 1000)}-${Math.random().toString(36).slice(2, 8)}.txt`;
