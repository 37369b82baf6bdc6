/** Number, size and time formatting for the inspector (en-US grouping, binary units; dates in the page's language). */
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
 * Sentences translated one by one, put together: a space after each, as English writes them, but
 * none after a full-width stop (。！？：), as Chinese writes them. Empty parts are left out.
 */
export const sentences = (...parts: (string | undefined)[]): string =>
  parts
    .filter((part): part is string => !!part)
    .reduce((text, part) => (text === '' ? part : /[。！？：）]$/.test(text) ? `${text}${part}` : `${text} ${part}`), '');

export function time(epochMs: number): string {
  const date = new Date(epochMs);
  // The host sets <html lang> to VS Code's display language; a browser test page has its own.
  return date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/**
 * An output's sizes, named by what each measures: "output 884 KiB" when the copy holds all of it,
 * else "output 9.5 MiB · copy 884 KiB" (the copy is what pages and searches read). The tree says the
 * same (src/extension/sizes.ts `outputSizes`, checked equal by test/unit/sizes.test.ts).
 */
export function outputSizes(info: { totalBytes: number; droppedBytes: number; complete: boolean }, exact = false): string {
  const format = exact ? bytesExact : bytes;
  const output = info.totalBytes + info.droppedBytes;
  return info.droppedBytes > 0
    ? l10n.t('output {output} · copy {copy}', { output: bytes(output), copy: format(info.totalBytes) })
    : l10n.t('output {0}', format(output));
}
