/**
 * Sizes as every place shows them, the same way the inspector's page does (webview/sizes.ts `bytes`,
 * checked equal by test/unit/sizes.test.ts): binary units, three significant figures at most, bytes
 * grouped en-US. And each size named by what it measures, as the page names it: the output the tool
 * produced, the copy retained of it (smaller when capture dropped a part), the preview the model got.
 * vscode-free (translated with @vscode/l10n, which activation configures from VS Code's bundle).
 */
import * as l10n from '@vscode/l10n';

const grouping = new Intl.NumberFormat('en-US');

export function sizeText(value: number): string {
  if (value < 1024) return `${grouping.format(value)} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let scaled = value / 1024;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${scaled >= 100 ? scaled.toFixed(0) : scaled.toFixed(1)} ${units[unit]}`;
}

/** "884 KiB (905,216 bytes)": the exact figure matters when checking offsets. */
export const sizeExact = (value: number): string =>
  value < 1024
    ? l10n.t('{0} bytes', grouping.format(value))
    : l10n.t('{size} ({bytes} bytes)', { size: sizeText(value), bytes: grouping.format(value) });

/**
 * An output's sizes, named: "output 884 KiB" when the copy holds all of it, else "output 9.5 MiB ·
 * copy 884 KiB" (the copy is what pages and searches read; the output is what the tool wrote).
 */
export function outputSizes(info: { totalBytes: number; droppedBytes: number; complete: boolean }, exact = false): string {
  const format = exact ? sizeExact : sizeText;
  const output = info.totalBytes + info.droppedBytes;
  return info.droppedBytes > 0
    ? l10n.t('output {output} · copy {copy}', { output: sizeText(output), copy: format(info.totalBytes) })
    : l10n.t('output {0}', format(output));
}
