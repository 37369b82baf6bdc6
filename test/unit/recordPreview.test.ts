// The one helper the tools record the text the model got with (src/core/tools/recordPreview.ts):
// best effort, never a rejection, never silent.
import assert from 'node:assert/strict';
import { recordPreview } from '../../src/core/tools/recordPreview';

describe('recordPreview: annotate, but never fail the tool because of it', () => {
  it('annotates each copy once with { preview: text }, skipping absent ids', async () => {
    const calls: [string, Record<string, unknown>][] = [];
    const failures = await recordPreview(
      async (outputId, extra) => {
        calls.push([outputId, extra]);
      },
      ['out_a', undefined, 'out_b', 'out_a'],
      'the text',
    );
    assert.deepEqual(failures, []);
    assert.deepEqual(calls, [
      ['out_a', { preview: 'the text' }],
      ['out_b', { preview: 'the text' }],
    ]);
    assert.deepEqual(await recordPreview(undefined, ['out_a'], 'no store'), []);
  });

  it('a rejected annotate is reported to onError and returned; the others are still tried; a throwing logger changes nothing', async () => {
    const tried: string[] = [];
    const annotate = async (outputId: string) => {
      tried.push(outputId);
      if (outputId === 'out_bad') throw Object.assign(new Error('the output was evicted'), { code: 'EVICTED' });
    };
    const told: string[] = [];
    const failures = await recordPreview(annotate, ['out_bad', 'out_ok'], 't', (message) => told.push(message));
    assert.deepEqual(tried, ['out_bad', 'out_ok']);
    assert.deepEqual(failures, ['the preview the model received could not be recorded for out_bad: EVICTED: the output was evicted']);
    assert.deepEqual(told, failures);
    const again = await recordPreview(annotate, ['out_bad'], 't', () => {
      throw new Error('the log is gone');
    });
    assert.equal(again.length, 1);
  });
});
