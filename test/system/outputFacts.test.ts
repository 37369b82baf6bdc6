// The inspector's preview pane facts (src/extension/inspector/outputFacts.ts, vscode-free): a preview
// recorded when the tool ran is shown as exact, its omission marker where the tool recorded it in the
// whole result text the model got (header lines first), never found by reading that text; an older
// output without a recorded preview is rebuilt from the copy.
import assert from 'node:assert/strict';
import { previewView } from '../../src/extension/inspector/outputFacts';
import { fitToolResult } from '../../src/core/history';
import { DEFAULT_LIMITS, KiB, MiB } from '../../src/core/limits';
import { runCodeTool } from '../../src/core/tools/runCode';
import { runCommandTool } from '../../src/core/tools/runCommand';
import { useCommandFixture } from '../unit/helpers/commandFixture';

/** The read call a marker names, and the range it says was omitted. */
function omittedIn(text: string): { from: number; to: number } {
  const m = /\[\.\.\. \d+ bytes omitted: bytes \[(\d+), (\d+)\)/.exec(text);
  assert.ok(m, 'no marker');
  return { from: Number(m[1]), to: Number(m[2]) };
}

describe('inspector preview: the exact text the model got', function () {
  this.timeout(60_000);
  const fx = useCommandFixture('output-facts');
  const run = (command: string, previewBytes = DEFAULT_LIMITS.previewBytes) =>
    runCommandTool({ command }, { store: fx.store, baseDir: fx.work, defaultTimeoutSeconds: 30, previewBytes, streamBytes: 8 * MiB });

  it("a recorded run_command result is shown as 'recorded', whole, its marker located after the header lines", async () => {
    const { text, result } = await run('seq 1 100000');
    const info = await fx.store.info(result.outputId!);
    const view = previewView({ info, budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(view.source, 'recorded');
    assert.equal(view.note, undefined);
    assert.equal(view.text, text);
    assert.ok(view.marker, 'the marker is located');
    const marker = text.slice(view.marker.start, view.marker.end);
    assert.match(marker, /^\[\.\.\. \d+ bytes omitted: bytes \[\d+, \d+\) of \d+, [^\n]*\]$/);
    assert.ok(marker.includes(JSON.stringify({ outputId: result.outputId, offset: view.omitted!.from })), marker);
    assert.equal(view.marker.start, text.indexOf('\n[... ') + 1, 'the first marker line, after the header and the head');
    assert.ok(text.indexOf('--- output (head and tail') < view.marker.start);
    assert.deepEqual(view.omitted, omittedIn(result.preview));
    // "Show bytes … in the copy" starts where the model stopped seeing it: the head before the marker is the copy's [0, from).
    const copy = await fx.store.readAll(result.outputId!);
    const head = Buffer.from(copy.subarray(0, view.omitted.from)).toString('utf8');
    assert.ok(text.slice(0, view.marker.start).endsWith(head), 'the head before the marker is the copy up to `from`');
  });

  it("the marker recorded is the merged copy's, not the stderr section's of a failure whose output is all stderr (same totals)", async () => {
    const { text, result } = await run('seq 1 100000 >&2; exit 1');
    assert.match(text, /--- stderr alone \(exit code 1; \d+ bytes\) ---/);
    const stderrSection = text.indexOf('--- stderr alone');
    const stderrMarker = text.indexOf('\n[... ', stderrSection) + 1;
    assert.ok(stderrMarker > stderrSection, 'the stderr section has a marker of its own');
    const info = await fx.store.info(result.outputId!);
    const view = previewView({ info, budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(view.source, 'recorded');
    assert.ok(view.marker!.start < stderrSection, 'the marker found is the merged copy’s');
  });

  it("a recorded preview from a shrunk budget keeps its marker; a capped @recall result's preview too", async () => {
    const small = await run('for i in $(seq 1 5000); do echo "line $i of the log"; done', 1200);
    const view = previewView({ info: await fx.store.info(small.result.outputId!), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(view.text, small.text);
    assert.deepEqual(view.omitted, omittedIn(small.result.preview));

    const content = Array.from({ length: 3000 }, (_, i) => `row ${i + 1}: 數據`).join('\n');
    const fit = await fitToolResult([{ kind: 'text', text: content }], {
      contextWindowTokens: 128_000,
      retain: fx.store.retain.bind(fx.store),
      annotate: fx.store.annotate.bind(fx.store),
      meta: { tool: 'grep' },
    });
    const part = fit.parts[0] as { text: string };
    const recalled = previewView({ info: await fx.store.info(fit.cuts[0].outputId!), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(recalled.source, 'recorded');
    assert.equal(recalled.text, part.text);
    assert.deepEqual(recalled.omitted, omittedIn(part.text));
  });

  it('an older run_command output without a recorded preview is rebuilt from the copy, and says so', async () => {
    const content = Array.from({ length: 20000 }, (_, i) => `${i + 1}`).join('\n');
    const { outputId } = await fx.store.retain(content, { tool: 'run_command', title: 'seq 1 20000' });
    const info = await fx.store.info(outputId);
    const view = previewView({ info, bytes: await fx.store.readAll(outputId), budgetBytes: 4096 });
    assert.equal(view.source, 'recomputed');
    assert.match(
      view.note!,
      /^Rebuilt from the copy with a 4096-byte budget \(the current previewBytes setting\): the exact text the model got was not recorded\.$/,
    );
    assert.ok(view.marker && view.text);
    assert.match(view.text.slice(view.marker.start, view.marker.end), /^\[\.\.\. \d+ bytes omitted: bytes \[\d+, \d+\) of \d+, [^\n]*\]$/);
    assert.deepEqual(view.omitted, omittedIn(view.text));
  });

  it("run_code: the return value's copy shows its marker; a nested result's copy, whose text names no range of its own, none", async () => {
    const { text, result } = await runCodeTool(
      { code: "const r = await tools.call('run_command', { command: 'seq 1 100000' });\nreturn r + r;" },
      {
        callTool: async (_name, input) => {
          const ran = await runCommandTool(
            { command: String(input.command) },
            {
              store: fx.store,
              baseDir: fx.work,
              defaultTimeoutSeconds: 30,
              previewBytes: DEFAULT_LIMITS.previewBytes,
              streamBytes: 8 * MiB,
            },
          );
          return { text: ran.text, outputIds: [ran.result.outputId!] };
        },
        store: fx.store,
        previewBytes: DEFAULT_LIMITS.previewBytes,
      },
    );
    assert.ok(result.valueOutputId);
    const value = previewView({ info: await fx.store.info(result.valueOutputId), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(value.text, text);
    assert.ok(value.marker, 'the value copy has its marker');
    const marker = text.slice(value.marker.start, value.marker.end);
    assert.match(marker, /^\[\.\.\. \d+ bytes omitted: bytes \[\d+, \d+\) of \d+, [^\n]*\]$/);
    assert.ok(marker.includes(JSON.stringify({ outputId: result.valueOutputId, offset: value.omitted!.from })), marker);
    assert.deepEqual(value.omitted, { from: result.valueFacts!.omitted!.from, to: result.valueFacts!.omitted!.to });

    const nested = result.nested.find((record) => record.status === 'retained');
    assert.ok(nested?.outputId);
    const view = previewView({ info: await fx.store.info(nested.outputId), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(view.text, text);
    assert.deepEqual([view.marker, view.omitted], [undefined, undefined]);
  });

  it('the marker is read from the fields recorded with the text, never from the text itself', async () => {
    // A recorded text with nothing that looks like a marker: the recorded span and range are shown all the same.
    const bytes = 'x'.repeat(4 * KiB);
    const recorded = await fx.store.retain(bytes, {
      tool: 'run_command',
      extra: { preview: 'head\n(the gap)\ntail', previewMarker: { start: 5, end: 14, from: 5, to: 4000 } },
    });
    const view = previewView({ info: await fx.store.info(recorded.outputId), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.deepEqual([view.source, view.marker, view.omitted], ['recorded', { start: 5, end: 14 }, { from: 5, to: 4000 }]);

    // A copy recorded before markers were (an older session): a real-looking marker in its text is not looked for.
    const marker =
      '[... 3000 bytes omitted: bytes [10, 3010) of 4096, lines 1-1 of 1 (1 lines). The full output is retained: call read_tool_output {"outputId":"out_0123456789abcdef01234567","offset":10} to continue.]';
    const older = await fx.store.retain(bytes, { tool: 'run_command', extra: { preview: `xxxxxxxxxx\n${marker}\nxx` } });
    const shown = previewView({ info: await fx.store.info(older.outputId), budgetBytes: DEFAULT_LIMITS.previewBytes });
    assert.equal(shown.source, 'recorded');
    assert.deepEqual([shown.marker, shown.omitted], [undefined, undefined], 'marker position unknown: no highlight');

    // Fields that do not fit the text or the copy are not shown.
    for (const previewMarker of [
      { start: 5, end: 99, from: 5, to: 10 },
      { start: 5, end: 14, from: 5, to: 5000 },
      { start: 14, end: 5, from: 5, to: 10 },
      { start: '5', end: 14, from: 5, to: 10 },
    ]) {
      const bad = await fx.store.retain(bytes, { tool: 'run_command', extra: { preview: 'head\n(the gap)\ntail', previewMarker } });
      const badView = previewView({ info: await fx.store.info(bad.outputId), budgetBytes: DEFAULT_LIMITS.previewBytes });
      assert.deepEqual([badView.marker, badView.omitted], [undefined, undefined], JSON.stringify(previewMarker));
    }
  });
});
