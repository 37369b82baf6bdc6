// The MCP server's tool runner in-process (src/mcp/tools.ts): the same texts as the extension's
// tools, failures as results, cancellation passed on, nested run_code calls routed back to it.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveSettings } from '../../src/core/settings';
import { openWorkerStore, type WorkerStore } from '../../src/core/workers/workerClient';
import { settingSchema } from '../../src/core/manifest';
import { readToolOutputText } from '../../src/core/tools/readToolOutput';
import { searchToolOutputText } from '../../src/core/tools/searchToolOutput';
import { AgentTools } from '../../src/mcp/tools';
import type { Log } from '../../src/mcp/log';
import { waitUntil } from '../unit/helpers/mochaRun';
import { useTempDirs } from '../unit/helpers/tempDirs';

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
      store: async () => store,
      workspace,
      storeDir: path.dirname(store.file),
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

  it('searches a workspace file by path, with byte offsets read_file_page continues from; outputId or path, not both', async () => {
    const content = 'ok 1\nok 2\nERROR 数据 lost at 7\nok 3\n';
    writeFileSync(path.join(workspace, 'search.log'), content);
    const run = await tools.call('search_tool_output', { path: 'search.log', pattern: 'lost at \\d+', regex: true });
    assert.equal(run.isError, false, run.text);
    const [summary, match, advice] = run.text.split('\n');
    assert.deepEqual(JSON.parse(summary), { path: 'search.log', matches: 1, truncated: false, totalBytes: Buffer.byteLength(content) });
    const found = JSON.parse(match) as { offset: number; lineOffset: number; line: number; text: string };
    // UTF-8 byte offsets: 数据 is 6 bytes.
    assert.deepEqual([found.offset, found.lineOffset, found.line, found.text], [23, 10, 3, 'ERROR 数据 lost at 7']);
    assert.equal(advice.startsWith('Read around a match with read_file_page {"path":"search.log","byteOffset":10}'), true, advice);
    const page = await tools.call('read_file_page', { path: 'search.log', byteOffset: found.offset });
    assert.match(page.text, /---\nlost at 7\nok 3\n$/);
    // Neither: every retained output of this session (issue 38); both: refused.
    const neither = await tools.call('search_tool_output', { pattern: 'ok' });
    assert.equal(neither.isError, false, neither.text);
    assert.match(neither.text, /^\{"pattern":"ok","session":"current","outputsSearched":/);
    const both = await tools.call('search_tool_output', { pattern: 'ok', path: 'search.log', outputId: 'out_000000000000000000000000' });
    assert.match(both.text, /^search_tool_output failed \(INVALID_ARGUMENT\): search_tool_output takes "outputId" .* or "path" .*not both/);
    const elsewhere = path.join(dirs.make(), 'c.log');
    writeFileSync(elsewhere, 'ok\n');
    const outside = await tools.call('search_tool_output', { path: elsewhere, pattern: 'ok' });
    assert.equal(outside.isError, true);
    assert.match(outside.text, /^search_tool_output failed \(REFUSED\): .*outside the workspace folders/);
  });

  it('runs commands in the workspace; shutting down stops them', async () => {
    const ran = await tools.call('run_command', { command: 'pwd' });
    assert.ok(ran.text.includes(`--- output ---\n${workspace}\n`), ran.text);
    const stopping = new AbortController();
    const local = new AgentTools({
      store: async () => store,
      workspace,
      storeDir: path.dirname(store.file),
      settings: resolveSettings((key) => settingSchema(key)?.default),
      log: quiet,
      shutdown: stopping.signal,
    });
    // Shut down once the command runs (it has made its marker), not after a fixed 200 ms.
    const marker = path.join(dirs.make(), 'running');
    const slow = local.call('run_command', { command: `: > '${marker}'; sleep 30` });
    await waitUntil('the command to start', () => existsSync(marker));
    stopping.abort();
    assert.match((await slow).text, /^cancelled \(the process tree was stopped\)/m);
  });

  it("records the text a run_command or run_code result gives the model as its copies' preview; a failure to is logged, not returned", async () => {
    const ran = await tools.call('run_command', { command: 'seq 1 50000' });
    const outputId = /retained as outputId "(out_[0-9a-f]{24})"/.exec(ran.text)![1];
    assert.equal((await store.info(outputId)).extra?.preview, ran.text);
    const program = await tools.call('run_code', {
      code: "return (await tools.call('run_command', { command: 'seq 1 50000' })).repeat(2);",
    });
    assert.equal(program.isError, false, program.text);
    const valueId = /retained as outputId "(out_[0-9a-f]{24})"/.exec(program.text)![1];
    assert.equal((await store.info(valueId)).extra?.preview, program.text);

    const warnings: string[] = [];
    const failing = new Proxy(store, {
      get: (target, key: keyof WorkerStore) =>
        key === 'annotate'
          ? () => Promise.reject(new Error('the journal is full'))
          : typeof target[key] === 'function'
            ? (target[key] as (...args: unknown[]) => unknown).bind(target)
            : target[key],
    });
    const logged = new AgentTools({
      store: async () => failing,
      workspace,
      storeDir: workspace,
      settings: resolveSettings((key) => settingSchema(key)?.default),
      log: { ...quiet, warn: (message) => warnings.push(message) },
      shutdown: shutdown.signal,
    });
    // run_command records its text with the copy itself (no annotate); run_code annotates its value's copy.
    const kept = await logged.call('run_command', { command: 'seq 1 50000' });
    assert.equal(kept.isError, false);
    const keptId = /retained as outputId "(out_[0-9a-f]{24})"/.exec(kept.text)![1];
    assert.equal((await store.info(keptId)).extra?.preview, kept.text);
    const value = await logged.call('run_code', { code: "return 'v'.repeat(100000);" });
    assert.equal(value.isError, false, value.text);
    const notedId = /retained as outputId "(out_[0-9a-f]{24})"/.exec(value.text)![1];
    assert.deepEqual(warnings, [`run_code: the preview the model received could not be recorded for ${notedId}: the journal is full`]);
  });
});
