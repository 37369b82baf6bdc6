import { promises as fs } from 'node:fs';
import * as path from 'node:path';
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

/**
 * A Claude Code configuration folder for a suite (CLAUDE_CONFIG_DIR set in `before`, restored in
 * `after`) with one session's `tool-results` folder, as Claude Code 2.1.332 lays it out; call at
 * describe level. `config()` and `results()` are valid once `before` ran.
 */
export function useClaudeResults(make: () => string): { config(): string; results(): string } {
  const saved = process.env.CLAUDE_CONFIG_DIR;
  let config = '';
  before(async () => {
    config = await fs.realpath(make());
    process.env.CLAUDE_CONFIG_DIR = config;
    await fs.mkdir(path.join(config, CLAUDE_RESULTS), { recursive: true });
  });
  after(() => {
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
  });
  return { config: () => config, results: () => path.join(config, CLAUDE_RESULTS) };
}

/** A session's tool-results folder under the configuration folder: projects/<sanitised cwd>/<session id>/tool-results. */
const CLAUDE_RESULTS = path.join('projects', '-root-work-proj', '827ffb4e-b3d4-4267-ab44-5863d0c16af3', 'tool-results');
