/**
 * Times as every place shows them, free of the DOM and of vscode (the tree, the status bar and the
 * session names use these very functions, through src/extension/times.ts): one exact form,
 * "Dec 6, 2026, 12:49:34 PM" in the reader's language, and in lists a relative one ("2 minutes ago")
 * whose tooltip gives the exact time.
 */

/** The one exact form of a time: medium date and medium time, in `locale` (the runtime's when undefined). */
export function exactTime(epochMs: number, locale?: string): string {
  return new Date(epochMs).toLocaleString(locale || undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** How long ago `then` was, in the language's words ("5 minutes ago", "5分钟前"); an unknown language reads English. */
export function relativeTime(then: number, now: number, locale?: string): string {
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['second', 60],
    ['minute', 60],
    ['hour', 24],
    ['day', 30],
    ['month', 12],
  ];
  let value = Math.round((then - now) / 1000);
  let unit: Intl.RelativeTimeFormatUnit = 'year';
  for (const [name, size] of steps) {
    if (Math.abs(value) < size) {
      unit = name;
      break;
    }
    value = Math.trunc(value / size);
  }
  let format: Intl.RelativeTimeFormat;
  try {
    format = new Intl.RelativeTimeFormat(locale || undefined, { numeric: 'auto' });
  } catch {
    format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  }
  return format.format(value, unit);
}
