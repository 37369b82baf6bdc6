/**
 * Numbers and sizes as the inspector writes them (en-US grouping, binary units), free of the DOM and
 * of vscode: the extension's tree, status bar and session names use these very functions
 * (src/extension/sizes.ts re-exports them; the lint zone allows that one import).
 */
import * as l10n from '@vscode/l10n';

const grouping = new Intl.NumberFormat('en-US');

export const num = (value: number): string => grouping.format(value);

export function bytes(value: number): string {
  if (value < 1024) return `${num(value)} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let scaled = value / 1024;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${scaled >= 100 ? scaled.toFixed(0) : scaled.toFixed(1)} ${units[unit]}`;
}

/** "1.5 MiB (1,572,864 bytes)": the exact figure matters when checking offsets. */
export const bytesExact = (value: number): string =>
  value < 1024 ? l10n.t('{0} bytes', num(value)) : l10n.t('{size} ({bytes} bytes)', { size: bytes(value), bytes: num(value) });

/**
 * An output's sizes, named by what each measures: "output 884 KiB" when the copy holds all of it,
 * else "output 9.5 MiB · copy 884 KiB" (the copy is what pages and searches read). The tree says the
 * same through src/extension/sizes.ts.
 */
export function outputSizes(info: { totalBytes: number; droppedBytes: number; complete: boolean }, exact = false): string {
  const format = exact ? bytesExact : bytes;
  const output = info.totalBytes + info.droppedBytes;
  return info.droppedBytes > 0
    ? l10n.t('output {output} · copy {copy}', { output: bytes(output), copy: format(info.totalBytes) })
    : l10n.t('output {0}', format(output));
}
