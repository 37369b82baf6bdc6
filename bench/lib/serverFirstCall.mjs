// The first search across outputs of a fresh MCP server (dist/mcp.js over stdio), as an agent's model makes it: the
// client initializes and lists the tools, and the call comes `afterMs` later (the model's first turn). The fixture's
// sessions are announced to the server as VS Code's folder (read-only; the server's own session is in a scratch folder,
// so nothing of the fixture is written or pruned). Used by bench/searchAcross.mjs.
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** VmRSS of the server's process in MiB: the entry (front.ts) forks it, so it is the entry's child. */
function serverRssMiB(entryPid) {
  try {
    const [child] = readFileSync(`/proc/${entryPid}/task/${entryPid}/children`, 'utf8').trim().split(/\s+/);
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
}

export async function serverFirstCall({ serverScript, storesDir, pattern, regex = false, caseSensitive = false, afterMs }) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tor-across-server-'));
  const store = path.join(scratch, 'store');
  mkdirSync(store, { mode: 0o700 });
  // As the extension announces its sessions' folder to the agents' one (agentStore.ts VSCODE_SESSIONS_FILE).
  writeFileSync(path.join(store, 'vscode-sessions.json'), `${JSON.stringify({ dirs: [storesDir] })}\n`, { mode: 0o600 });
  const client = new Client({ name: 'claude-code', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverScript, '--workspace', scratch, '--store', store],
    stderr: 'ignore',
  });
  try {
    await client.connect(transport);
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    const idleRssMiB = serverRssMiB(transport.pid);
    const t = process.hrtime.bigint();
    const result = await client.callTool({
      name: 'search_tool_output',
      arguments: { pattern, session: 'all', regex, caseSensitive },
    });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (result.isError) throw new Error(`search_tool_output failed: ${result.content[0]?.text}`);
    // The result's first line is its summary (JSON); groups or advice follow.
    const summary = JSON.parse(result.content[0].text.split('\n')[0]);
    return { ms, hits: summary.matches, sessions: summary.outputsInScope, idleRssMiB };
  } finally {
    await client.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
