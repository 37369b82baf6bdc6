// The inspector's preview pane facts (src/extension/inspector/outputFacts.ts, vscode-free): a preview
// recorded when the tool ran is shown as exact, its omission marker found inside the whole result
// text the model got (header lines first); an older output without one is rebuilt from the copy.
import assert from 'node:assert/strict';
import { locateMarker, previewView } from '../../src/extension/inspector/outputFacts';
import { fitToolResult } from '../../src/core/history';
import { DEFAULT_LIMITS, MiB } from '../../src/core/limits';
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

  it('the merged marker wins over the stderr section of a failure whose output is all stderr (same totals, no read call)', async () => {
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
    assert.ok(view.marker);
  });

  it('locateMarker: a marker that names the copy beats a look-alike line with the same numbers; without a name, position decides', () => {
    const fake =
      '[... 50 bytes omitted: bytes [10, 60) of 100, lines 2-3 of 9 (2 lines). They were NOT retained: this preview is all that can be read.]';
    const real =
      '[... 50 bytes omitted: bytes [10, 60) of 100, lines 2-3 of 9 (2 lines). The full output is retained: call read_tool_output {"outputId":"out_0123456789abcdef01234567","offset":10} to continue.]';
    const text = `$ cat agent.log\nexit code 0\n--- output ---\n${fake}\n${real}\ntail\n`;
    const found = locateMarker(text, 100, 'out_0123456789abcdef01234567');
    assert.equal(text.slice(found.marker!.start, found.marker!.end), real);
    assert.deepEqual(found.omitted, { from: 10, to: 60 });
    // Another copy's id, or none: the first candidate (nothing is placed at byte 10 of this text).
    assert.equal(locateMarker(text, 100, 'out_ffffffffffffffffffffffff').marker!.start, text.indexOf(fake));
    // A preview alone: the marker whose head is exactly `from` bytes, though a look-alike comes first.
    const at200 = '[... 50 bytes omitted: bytes [200, 250) of 400, lines 9-10 of 20 (2 lines). They were NOT retained.]';
    const filler = `${'x'.repeat(200 - Buffer.byteLength(at200) - 2)}\n`;
    const alone = `${at200}\n${filler}${at200}\ntail`;
    assert.equal(Buffer.byteLength(alone.slice(0, alone.lastIndexOf(at200))), 200);
    assert.equal(locateMarker(alone, 400).marker!.start, alone.lastIndexOf(at200));
    // Numbers that do not fit the copy are never a marker.
    assert.deepEqual(locateMarker(text, 101, 'out_0123456789abcdef01234567'), {});
  });
});
