/** Number, size and time formatting for the inspector (en-US grouping, binary units). */
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
export const bytesExact = (value: number): string => (value < 1024 ? `${num(value)} bytes` : `${bytes(value)} (${num(value)} bytes)`);

export function time(epochMs: number): string {
  const date = new Date(epochMs);
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export const plural = (count: number, word: string): string => `${num(count)} ${word}${count === 1 ? '' : 's'}`;
