// Writes what "Connect Other Agents…" writes, with the command's own core code (no copy of its
// shapes): the stable launcher and build (installServer), then each agent's entries merged into their
// files (agentTargets: Claude Code's hook too; planFiles, writePlanned). The runner bundles this with esbuild and runs it with
// plain Node: `node connect.js <dist> <server root> <workspace> <agent>…`, with CODEX_HOME set for
// Codex's file. Prints { launcher, files } as JSON.
import { promises as fs } from 'node:fs';
import { agentTargets, type AgentId } from '../../src/core/agents/agents';
import { installServer } from '../../src/core/agents/install';
import { planFiles, writePlanned } from '../../src/core/agents/plan';
import { PACKAGE_VERSION } from '../../src/core/manifest';

async function main(): Promise<void> {
  const [dist, root, folder, ...agents] = process.argv.slice(2);
  const installed = await installServer(dist, root, PACKAGE_VERSION);
  const workspace = await fs.realpath(folder);
  // The command names `node` from PATH, as here.
  const targets = (agents as AgentId[]).flatMap((id) => agentTargets(id, { node: 'node', launcher: installed.launcher, workspace }));
  const files = await writePlanned(await planFiles(targets));
  process.stdout.write(JSON.stringify({ launcher: installed.launcher, files }));
}

main().catch((error: unknown) => {
  process.stderr.write(`connect: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
