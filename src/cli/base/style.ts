import { stripVTControlCharacters, styleText } from 'node:util';

/** A stream the CLI writes to: `process.stdout`, `process.stderr`, or a test's stand-in. */
export interface OutStream {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  hasColors?: (() => boolean) | undefined;
}

type Format = Parameters<typeof styleText>[0];

/**
 * Colours for one stream, decided once: `FORCE_COLOR` (not `0`) turns them on, `NO_COLOR`,
 * `FORCE_COLOR=0` or `--no-color` off; otherwise a terminal that supports them
 * (https://no-color.org, https://force-color.org).
 *
 * @example
 * ```ts
 * const style = createStyle(process.stdout, process.env, false);
 * console.log(style('green', '✔'), 'done');
 * ```
 */
export function createStyle(stream: OutStream, env: Readonly<Record<string, string | undefined>>, noColor: boolean): Style {
  const enabled = colorsEnabled(stream, env, noColor);
  // `validateStream: false`: the decision above is the one that counts (it also honours --no-color).
  return enabled ? (format, text) => styleText(format, text, { validateStream: false }) : (_format, text) => text;
}

/** Styles `text` when colours are on, or returns it unchanged. */
export type Style = (format: Format, text: string) => string;

function colorsEnabled(stream: OutStream, env: Readonly<Record<string, string | undefined>>, noColor: boolean): boolean {
  if (noColor) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true && (stream.hasColors?.() ?? false);
}

/**
 * The width of `text` on a terminal: escape sequences take none, characters of East Asian wide
 * scripts and most emoji take two.
 *
 * @example
 * ```ts
 * visibleWidth('\x1b[32m✔\x1b[39m done'); // 6
 * ```
 */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of stripVTControlCharacters(text)) width += charWidth(char.codePointAt(0) ?? 0);
  return width;
}

/**
 * `text` cut to `width` terminal columns (escape sequences kept, an ellipsis where it was cut).
 *
 * @example
 * ```ts
 * truncate('KSampler (#3) 12/20 steps', 10); // 'KSampler …'
 * ```
 */
export function truncate(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  // Escape sequences pass through whole; visible characters count until one column is left for "…".
  // eslint-disable-next-line no-control-regex -- splitting at terminal escape sequences
  const parts = text.split(/(\x1b\[[0-9;?]*[A-Za-z])/);
  for (const part of parts) {
    if (part.startsWith('\x1b[')) {
      out += part;
      continue;
    }
    for (const char of part) {
      const w = charWidth(char.codePointAt(0) ?? 0);
      // A reset after the ellipsis, so a colour cut in the middle does not run on.
      if (used + w > width - 1) return `${out}…${text.includes('\x1b[') ? '\x1b[0m' : ''}`;
      out += char;
      used += w;
    }
  }
  return out;
}

function charWidth(code: number): number {
  if (code === 0 || (code >= 0x300 && code <= 0x36f) || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}
