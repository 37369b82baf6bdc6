// Whatever a client keeps of a large result, the way to the rest is in it (issue 31 §2). Measured
// with the real CLIs (test/clients): Copilot CLI replaces a result over 20,480 bytes with a note and
// the result's first 500 characters; Codex keeps about 12,000 bytes, head and tail; a client may
// keep only the end. So for results of every shape, the first 500 characters, the last 500, and a
// middle cut that keeps 6,000 bytes of head and 6,000 of tail each hold the outputId, the omitted
// range, the exact read call with its offset, and the notable lines omitted when there are any.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { renderCommandResult, runCommandTool, type RunCommandResult } from '../../src/core/tools/runCommand';
import { runCodeTool } from '../../src/core/tools/runCode';
import { previewHeadTail } from '../../src/core/preview';
import { notableMention } from '../../src/core/previewFacts';
import { DEFAULT_LIMITS, KiB } from '../../src/core/limits';
import { skipBecause } from '../unit/helpers/mochaRun';
import { useCommandFixture } from '../unit/helpers/commandFixture';

/** A middle cut as Codex makes it: `keep` bytes of head and `keep` of tail (a character cut in two is dropped). */
function middleCut(text: string, keep: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= 2 * keep) return text;
  return `${bytes.subarray(0, keep).toString('utf8')}\n…\n${bytes.subarray(bytes.length - keep).toString('utf8')}`;
}

/** What a client keeps of `text`: its first 500 characters, its last 500, or a middle cut of 6,000 + 6,000 bytes. */
function cuts(text: string): Record<string, string> {
  return {
    'first 500 characters': text.slice(0, 500),
    'last 500 characters': text.slice(-500),
    'middle cut 6,000 + 6,000 bytes': middleCut(text, 6000),
  };
}

interface Expected {
  outputId: string;
  from: number;
  to: number;
  total: number;
  /** A notable line the preview names as the first omitted one ("error line 9000 @…"), or undefined for none. */
  firstNotable?: RegExp;
}

/** Each cut of `text` holds the outputId, the range, the read call from its start, and the notable mention. */
function assertSurvivesCuts(text: string, expected: Expected): void {
  const { outputId, from, to, total, firstNotable } = expected;
  for (const [name, kept] of Object.entries(cuts(text))) {
    const where = `${name}:\n${kept}`;
    assert.ok(kept.includes(`outputId "${outputId}"`), `the outputId, in the ${where}`);
    assert.ok(kept.includes(`bytes [${from}, ${to}) of ${total}`), `the omitted range, in the ${where}`);
    assert.ok(kept.includes(`read_tool_output {"outputId":"${outputId}","offset":${from}}`), `the read call, in the ${where}`);
    if (firstNotable) {
      assert.match(kept, /[Nn]otable lines: (\d+ errors?|none omitted)/, `the notable count, in the ${where}`);
      assert.match(kept, firstNotable, `the first notable line, in the ${where}`);
    } else {
      assert.doesNotMatch(kept, /[Nn]otable lines:/, `no notable mention without notable lines, in the ${where}`);
    }
  }
}

/** The range and first notable line the result's marker states (the expected values, read independently). */
function markerFacts(text: string, outputId: string): Expected {
  const marker =
    /\[\.\.\. \d+ bytes omitted: bytes \[(\d+), (\d+)\) of (\d+), .*? call read_tool_output \{"outputId":"(out_[0-9a-f]+)","offset":(\d+)\}/.exec(
      text,
    );
  assert.ok(marker, text.slice(0, 800));
  assert.equal(marker[4], outputId);
  assert.equal(marker[5], marker[1], 'the marker reads on from where the omitted part starts');
  return { outputId, from: Number(marker[1]), to: Number(marker[2]), total: Number(marker[3]) };
}

describe('results survive every client cut: outputId, omitted range, read call and notable lines at both ends', function () {
  this.timeout(120_000);
  const fx = useCommandFixture('result-cuts');
  before(function () {
    if (process.platform === 'win32') skipBecause(this, 'the commands are POSIX shell');
  });

  const run = (command: string, options: { previewBytes?: number; streamBytes?: number; cwd?: string } = {}) =>
    runCommandTool(
      { command, cwd: options.cwd },
      {
        store: fx.store,
        baseDir: fx.work,
        defaultTimeoutSeconds: 60,
        previewBytes: options.previewBytes ?? DEFAULT_LIMITS.previewBytes,
        streamBytes: options.streamBytes ?? DEFAULT_LIMITS.streamBytes,
      },
    );

  /** 30,000 lines with an ERROR line in the middle (the issue's `line 9000 ERROR: …`), padded to a 2,000-character command. */
  const ERROR_MIDDLE =
    'awk \'BEGIN { for (i = 1; i <= 30000; i++) { if (i == 9000) print "line 9000 ERROR: disk quota exceeded"; else print "line " i } }\'';

  it('a 2,000-character command whose output has an ERROR line in the omitted middle, in a deep working folder', async () => {
    const command = `${ERROR_MIDDLE} # ${'x'.repeat(2000 - ERROR_MIDDLE.length - 3)}`;
    assert.equal(command.length, 2000);
    const deep = path.join(fx.work, ...Array.from({ length: 12 }, (_, i) => `folder-with-a-long-name-${i}`));
    mkdirSync(deep, { recursive: true });
    const { text, result } = await run(command, { cwd: deep });
    assert.ok(result.outputId);
    const facts = markerFacts(text, result.outputId);
    assertSurvivesCuts(text, { ...facts, firstNotable: /first: error line 9000 @\d+/ });
    // The command is clipped in the header, saying so and how long it was; the status line follows.
    assert.ok(text.startsWith(`$ ${command.slice(0, 100)}… (2000 characters)\nexit code 0; `), text.slice(0, 200));
    // The working folder, on the sizes line, its start and its end (the folders nearest the command).
    assert.ok(deep.length > 300);
    assert.ok(text.includes(`; cwd ${deep.slice(0, 100)}…${deep.slice(-200)} (${deep.length} characters)\n`), text.slice(0, 1500));
    // The ERROR line is an error, in the list and in the mention.
    assert.match(text, /\nerror line 9000 @\d+: line 9000 ERROR: disk quota exceeded/);
  });

  it('output without notable lines: no notable mention, the rest at both ends', async () => {
    const { text, result } = await run('seq 1 20000');
    assert.ok(result.outputId);
    assertSurvivesCuts(text, markerFacts(text, result.outputId));
    assert.ok(text.endsWith(`read_tool_output {"outputId":"${result.outputId}","offset":${markerFacts(text, result.outputId).from}}.]`));
  });

  it('an incomplete capture: what the capture dropped is counted apart, and the copy says it is incomplete', async () => {
    const { text, result } = await run(
      'awk \'BEGIN { for (i = 1; i <= 60000; i++) { if (i == 30000) print "fatal: out of memory in worker"; else print "row " i } }\'',
      { streamBytes: 64 * KiB },
    );
    assert.ok(result.outputId);
    assert.equal(result.merged.complete, false);
    const facts = markerFacts(text, result.outputId);
    assertSurvivesCuts(text, { ...facts, firstNotable: /first: error output line 30000, dropped at capture/ });
    assert.match(text.slice(0, 1000), /The copy keeps \d+ of \d+ output bytes \(complete: false\)/);
  });

  it('a failure with stdout and stderr: the stderr section comes before the last line', async () => {
    const { text, result } = await run('seq 1 20000; echo "fatal: bad config at line 3" >&2; seq 1 3000 >&2; exit 3');
    assert.ok(result.outputId);
    assert.equal(result.exitCode, 3);
    assert.ok(result.stderrExcerpt, 'a stderr section');
    assert.ok(text.indexOf('--- stderr alone') < text.lastIndexOf('[end of preview.'));
    const facts = markerFacts(text, result.outputId);
    assertSurvivesCuts(text, { ...facts, firstNotable: /first: error line \d+ @\d+/ });
    assert.match(text, /^\$ seq .*\nexit code 3; \d+\.\d s\nNOT the whole output: retained as outputId /);
  });

  it('run_code: a return value cut in the middle, with an error line there', async () => {
    const code =
      "let s = '';\nfor (let i = 1; i <= 20000; i++) s += (i === 7000 ? 'Traceback: worker 7 failed' : 'value line ' + i) + '\\n';\nreturn s;";
    const { text, result } = await runCodeTool(
      { code },
      { callTool: async () => ({ text: '' }), store: fx.store, previewBytes: DEFAULT_LIMITS.previewBytes },
    );
    assert.ok(result.valueOutputId);
    const facts = markerFacts(text, result.valueOutputId);
    assertSurvivesCuts(text, { ...facts, firstNotable: /first: error line 7000 @\d+/ });
    assert.match(
      text,
      /^run_code: the program returned a string \(\d+ bytes\); [^\n]*\nNOT the whole return value: retained as outputId "out_/,
    );
  });

  it('the worst header this server writes still leaves everything in the first 500 characters', () => {
    // Largest numbers a default copy has (8 MiB), a long status, a notable list with every class and dropped lines.
    const outputId = 'out_0123456789abcdef01234567';
    const preview = [
      'head',
      `[... 8388000 bytes omitted: bytes [8388, 8396388) of 8396400, lines 1234-1234567 of 1234600 (1233334 lines). The full output is retained: call read_tool_output {"outputId":"${outputId}","offset":8388} to continue (follow nextOffset), or search_tool_output with the same outputId to find a field. Check the copy before concluding something is absent; if this outputId is lost, search_tool_output without one finds it. The retained copy is itself incomplete (capture dropped bytes): complete=false even after the last page.]`,
      '[notable lines in the omitted part: 12345 errors, 12345 summary lines, 12345 warnings (999 distinct); in the 123456789 bytes dropped at capture (output lines 1234567-9999999, NOT in the copy) the capture saw 12345 errors, 12345 summary lines, 12345 warnings; errors first; "@N" is the read_tool_output offset of a line:',
      'error line 1234567 @8388000: x',
      'warning line 1234568 @8388100: y]',
      'tail',
    ].join('\n');
    const counts = { error: 12345, summary: 12345, warning: 12345 };
    const stream = { totalBytes: 123456789012, capturedBytes: 8388608, droppedBytes: 123448400404, complete: false };
    const result: RunCommandResult = {
      command: `${'é'.repeat(3000)}`,
      cwd: `/${'d'.repeat(4000)}`,
      exitCode: null,
      signal: null,
      timedOut: true,
      cancelled: false,
      durationMs: 3_600_000,
      stdout: stream,
      stderr: stream,
      merged: stream,
      preview,
      previewTruncated: true,
      previewFacts: {
        totalBytes: 8396400,
        omitted: { from: 8388, to: 8396388, bytes: 8388000, firstLine: 1234, lines: 1233334 },
        notable: {
          shown: [
            { class: 'error', line: 1234567, offset: 8388000, text: 'x', count: 1 },
            { class: 'warning', line: 1234568, offset: 8388100, text: 'y', count: 1 },
          ],
          first: { class: 'error', line: 1234567, offset: 8388000, text: 'x', count: 1 },
          omitted: counts,
          dropped: counts,
        },
      },
      outputId,
      recovery: 'retained',
      queued: { waitedMs: 99_999, reason: 'x'.repeat(400) },
    };
    const { text } = renderCommandResult(result);
    assertSurvivesCuts(text, { outputId, from: 8388, to: 8396388, total: 8396400, firstNotable: /first: error line 1234567 @8388000/ });
    assert.match(text.slice(0, 500), /12345 errors, 12345 summary lines, 12345 warnings omitted; first: error line 1234567 @8388000/);
  });

  it("the preview's facts are what its marker states and its list shows, first line first", () => {
    const lines = Array.from({ length: 4000 }, (_, i) =>
      i === 1500 ? 'Error: connection refused' : i === 2500 ? 'WARNING: slow disk' : i === 2600 ? 'Total: 12 passed' : `plain line ${i}`,
    );
    const text = `${lines.join('\n')}\n`;
    const outputId = 'out_00112233445566778899aabb';
    const preview = previewHeadTail(text, { budgetBytes: 8 * KiB, kind: 'command', outputId });
    assert.ok(preview.omitted && preview.notable);
    const { from, to, firstLine, lines: count } = preview.omitted;
    const range = `bytes [${from}, ${to}) of ${preview.totalBytes}, lines ${firstLine}-${firstLine + count - 1} of ${preview.totalLines}`;
    assert.ok(preview.text.includes(range), range);
    const listed = /\n\[notable lines in the omitted part: [^\n]*:\n([^\n]*)/.exec(preview.text);
    const first = preview.notable.first!;
    assert.ok(listed?.[1].startsWith(`${first.class} line ${first.line} @${first.offset}`), 'the first line listed is `first`');
    assert.equal(
      notableMention(preview),
      `notable lines: 1 error, 1 summary line, 1 warning omitted; first: error line 1501 @${first.offset}`,
    );
  });
});
