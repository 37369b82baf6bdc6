/**
 * Copies for the browser tests, made by the real engine: a store in a temp folder, an 8 MiB mixed
 * CJK/emoji copy, and run_command outputs made by `runCommand` itself (complete, incomplete),
 * plus an evicted one from a store with a tiny quota.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { openStore } from '../../src/core/workers/stores';
import { runCommand, type RenderedCommandResult } from '../../src/core/tools/runCommand';
// The tools' registry, which runCommand's spec adds itself to (a type-only link: nothing loads).
import type {} from '../../src/core/tools/registry';
import { boundaryAtOrBefore } from '../../src/core/utf8';
import { after } from './harness';
import { makeRng } from '../unit/helpers/prng';

export const MiB = 1024 * 1024;

export async function tempStore(options: { copyBytes?: number; quotaBytes?: number } = {}): Promise<SessionStore> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tor-browser-'));
  const store = await openStore({ dir, ...options });
  after(async () => {
    await store.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return store;
}

const WORDS = ['build', 'test', 'error:', 'warning', 'ok', 'src/core/pager.ts', '{"k":1}', '0x1f', '---', 'done'];
const CJK = ['漢字', '日本語', 'テスト', '한국어', '中文输出', '東京', 'ログ', '错误'];
const EMOJI = ['😀', '🎉', '👩‍💻', '🇯🇵', '🧪', '✅', '❌', '🔥', '👍🏽'];
const TWO_BYTE = ['é', 'ß', 'ж', 'Ω', 'ñ', 'ü', 'ř'];

export interface MixedCopy {
  bytes: Buffer;
  /** Where each needle was put: `NEEDLE-<n>` at these byte offsets. */
  needles: number[];
}

/** About `size` bytes of lines mixing ASCII, CJK (3 bytes), emoji (4 bytes, ZWJ sequences) and 2-byte letters. */
export function mixedCopy(size: number, seed = 7): MixedCopy {
  const { next } = makeRng(seed); // deterministic: the same copy every run
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
  const lines: string[] = [];
  let bytes = 0;
  let n = 0;
  while (bytes < size) {
    const parts: string[] = [`${++n}:`];
    const long = next() < 0.01; // some lines far longer than a page
    const count = long ? 900 : Math.floor(next() * 40);
    for (let i = 0; i < count; i++) {
      const r = next();
      parts.push(r < 0.4 ? pick(WORDS) : r < 0.65 ? pick(CJK) : r < 0.85 ? pick(EMOJI) : pick(TWO_BYTE));
    }
    if (n % 5000 === 2500) parts.push(`NEEDLE-${n}`);
    const line = `${parts.join(next() < 0.5 ? ' ' : '')}\n`;
    lines.push(line);
    bytes += Buffer.byteLength(line);
  }
  let buffer = Buffer.from(lines.join(''), 'utf8');
  if (buffer.length > size) buffer = buffer.subarray(0, boundaryAtOrBefore(buffer, size));
  const needles: number[] = [];
  for (let at = buffer.indexOf('NEEDLE-'); at >= 0; at = buffer.indexOf('NEEDLE-', at + 1)) needles.push(at);
  return { bytes: buffer, needles };
}

/**
 * A run_command output through the real capture path (default 24 KiB preview, as the extension);
 * a small `streamBytes` makes the copy incomplete. Returns the result the model got, preview included.
 */
export async function commandOutput(
  store: SessionStore,
  command: string,
  streamBytes = 8 * MiB,
  timeoutMs = 30000,
): Promise<RenderedCommandResult & { outputId: string }> {
  const result = await runCommand({ command, timeoutMs }, store, { streamBytes });
  if (!result.outputId) throw new Error(`runCommand retained nothing (${result.recovery}: ${result.recoveryReason ?? ''})`);
  return result as RenderedCommandResult & { outputId: string };
}

/** The first byte offset inside a multi-byte character at or after `from`. */
export function midCharacterOffset(bytes: Buffer, from = 0): number {
  for (let i = from; i < bytes.length; i++) if ((bytes[i] & 0xc0) === 0x80) return i;
  throw new Error('no multi-byte character');
}
