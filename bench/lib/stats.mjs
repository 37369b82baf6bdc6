// Small statistics and formatting helpers for the bench (no dependencies).

/** The q-quantile (0..1) of `values`, linear interpolation between order statistics. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values) => quantile(values, 0.5);
export const p95 = (values) => quantile(values, 0.95);
export const max = (values) => values.reduce((m, v) => Math.max(m, v), -Infinity);

/** Milliseconds since `start` (a bigint from process.hrtime.bigint()). */
export const msSince = (start) => Number(process.hrtime.bigint() - start) / 1e6;

export function fmtMs(ms) {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export const fmtMiB = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(1)} MiB` : '-');
export const fmtRatio = (r) => (Number.isFinite(r) ? r.toFixed(2) : '-');

/** Renders rows (arrays of strings) as a left-aligned text table under `header`. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) =>
    cells
      .map((c, i) => String(c ?? '').padEnd(widths[i]))
      .join('   ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
