import type { Output } from './output.js';
import { truncate, visibleWidth } from './style.js';

/**
 * Prints rows as aligned columns under a dim header, each line cut to the terminal's width
 * (human mode only).
 *
 * @example
 * ```ts
 * printTable(out, ['ID', 'VERSION'], [['acme-upscale', '1.3.0']]);
 * ```
 */
export function printTable(out: Output, header: readonly string[], rows: readonly (readonly string[])[]): void {
  if (out.mode !== 'human') return;
  if (rows.length === 0) return;
  const widths = header.map((h, i) => Math.min(40, Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? '')))));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : pad(truncate(cell, widths[i]!), widths[i]!)))
      .join('  ')
      .trimEnd();
  const width = out.live ? out.columns - 1 : Infinity;
  out.human(out.style('dim', truncate(line(header), width)));
  for (const row of rows) out.human(truncate(line(row), width));
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/**
 * Prints `label value` lines under a heading, the labels dim and aligned, skipping labels without
 * a value (human mode only).
 *
 * @example
 * ```ts
 * printFields(out, [['latest', '1.3.0'], ['tags', undefined]]);
 * ```
 */
export function printFields(out: Output, rows: readonly (readonly [string, string | undefined])[]): void {
  const width = Math.max(0, ...rows.map(([label]) => label.length)) + 2;
  for (const [label, value] of rows) if (value) out.human(`  ${out.style('dim', label.padEnd(width))}${value}`);
}
