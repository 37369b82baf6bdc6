/**
 * `tool-output-recall-mcp plugin opencode|kilo`: prints the plugin Connect Other Agents writes for
 * OpenCode (`.opencode/plugins/tool-output-recall.js`) or Kilo Code (`.kilo/plugins/…`), naming this
 * Node and this program, for people who set agents up by hand (docs/agents.md, "By hand").
 */
import * as path from 'node:path';
import { KILO_HOOK_ARGS, OPENCODE_HOOK_ARGS, openCodePluginSource } from '../core/agents/openCodePlugin';
import { UsageError } from './options';

const PLUGINS: Record<string, readonly string[]> = { opencode: OPENCODE_HOOK_ARGS, kilo: KILO_HOOK_ARGS };

/** The plugin's source for `agent`, with `script` (this program's path) as the hook's program. */
export function pluginText(agent: string | undefined, script: string): string {
  const args = agent !== undefined && Object.hasOwn(PLUGINS, agent) ? PLUGINS[agent] : undefined;
  if (!args) throw new UsageError(`plugin takes the agent: opencode or kilo; got ${JSON.stringify(agent ?? '')}.`);
  return openCodePluginSource(process.execPath, path.resolve(script), args);
}
