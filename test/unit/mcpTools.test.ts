// The MCP server's tool runner in-process (src/mcp/tools.ts): the same texts as the extension's
// tools, failures as results, cancellation passed on, nested run_code calls routed back to it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveSettings } from '../../src/core/settings';
import { openWorkerStore, type WorkerStore } from '../../src/core/store/workerClient';
import { settingSchema } from '../../src/core/tools/manifest';
import { readToolOutputText } from '../../src/core/tools/readToolOutput';
import { searchToolOutputText } from '../../src/core/tools/searchToolOutput';
import { AgentTools } from '../../src/mcp/tools';
import type { Log } from '../../src/mcp/log';
import { useTempDirs } from './helpers/tempDirs';

const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('mcp: the tool runner', function () {
  this.timeout(60_000);
  const dirs = useTempDirs('mcp-tools');
  let store: WorkerStore;
  let tools: AgentTools;
  let workspace: string;
  const shutdown = new AbortController();
  before(async () => {
    store = await openWorkerStore({ dir: dirs.make() });
    workspace = dirs.make();
    writeFileSync(path.join(workspace, 'a.txt'), 'one\ntwo\n');
    tools = new AgentTools({
      store,
      workspace,
      settings: resolveSettings((key) => settingSchema(key)?.default),
      log: quiet,
      shutdown: shutdown.signal,
    });
  });
  after(() => store.close());

  it('gives the texts the shared functions build (the ones the VS Code tools return)', async () => {
    const { outputId } = await store.retain('alpha\nbeta\ngamma\n');
    const read = await tools.call('read_tool_output', { outputId, offset: 6 });
    assert.deepEqual(read, { text: await readToolOutputText(store, { outputId, offset: 6 }, 4096), isError: false });
    const search = await tools.call('search_tool_output', { outputId, pattern: 'GAMMA' });
    assert.deepEqual(search, { text: await searchToolOutputText(store, { outputId, pattern: 'GAMMA' }), isError: false });
  });

  it('passes the call signal to the search: an aborted call ends CANCELLED', async () => {
    const { outputId } = await store.retain('x'.repeat(100_000));
    const aborted = AbortSignal.abort();
    await assert.rejects(searchToolOutputText(store, { outputId, pattern: 'y' }, aborted), { code: 'CANCELLED' });
    const run = await tools.call('search_tool_output', { outputId, pattern: 'y' }, aborted);
    assert.equal(run.isError, true);
    assert.match(run.text, /^search_tool_output failed \(CANCELLED\): /);
  });

  it('reads files relative to the workspace and nowhere else by default', async () => {
    assert.match((await tools.call('read_file_page', { path: 'a.txt' })).text, /---\none\ntwo\n$/);
    const elsewhere = path.join(dirs.make(), 'b.txt');
    writeFileSync(elsewhere, 'three\n');
    const outside = await tools.call('read_file_page', { path: elsewhere });
    assert.equal(outside.isError, true);
    assert.match(outside.text, /^read_file_page failed \(REFUSED\): .*outside the workspace folders/);
  });

  it('runs commands in the workspace; shutting down stops them', async () => {
    const ran = await tools.call('run_command', { command: 'pwd' });
    assert.ok(ran.text.includes(`--- output ---\n${workspace}\n`), ran.text);
    const stopping = new AbortController();
    const local = new AgentTools({
      store,
      workspace,
      settings: resolveSettings((key) => settingSchema(key)?.default),
      log: quiet,
      shutdown: stopping.signal,
    });
    const slow = local.call('run_command', { command: 'sleep 30' });
    setTimeout(() => stopping.abort(), 200);
    assert.match((await slow).text, /^cancelled \(the process tree was stopped\)/m);
  });
});
