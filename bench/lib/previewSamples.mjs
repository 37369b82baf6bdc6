// The two 8 MiB logs the preview-cost bench (bench/evidence.mjs) and its profile
// (bench/profile/previewProfile.mjs) run previewHeadTail over, so both measure the same bytes.
import { makeLogText } from './logtext.mjs';

const MiB = 1024 * 1024;

/** INFO lines, one warning in 400: the scan finds almost nothing. */
export function quietText(bytes) {
  const line = (i) =>
    `2024-05-18T10:00:${String(i % 60).padStart(2, '0')}Z ${i % 400 === 0 ? 'WARN  [pool] slow query' : 'INFO  [http] GET /api/v1/items'} ${i} 200 in ${i % 900} ms\n`;
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = line(i);
    parts.push(l);
    size += l.length;
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

/** The bench's samples: quiet, and noisy (bench/lib/logtext.mjs, a third of its lines ERROR/WARN). */
export const previewSamples = (bytes = 8 * MiB) => ({ quiet: quietText(bytes), noisy: makeLogText(bytes, 21) });

/** The options the bench previews with: a 24 KiB budget, a command's output, a retained copy. */
export const PREVIEW_OPTIONS = { budgetBytes: 24 * 1024, kind: 'command', outputId: 'out_0123456789abcdef01234567' };
