// The `Price: N credits` line a partner node's text carries (docs/wire-protocol.md#cloud-binary-frames):
// read from any text without throwing; the last such line wins; N with thousands separators and up
// to two decimals is read exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePriceText } from '../../src/cloud/watch/price-text.js';
import { hostileString, params } from './helpers.js';

/** An amount in hundredths of a credit, and one way the server may print it. */
const amount = fc.record({ cents: fc.integer({ min: 0, max: 10 ** 13 }), separators: fc.boolean(), decimals: fc.constantFrom(0, 1, 2) }).map(({ cents, separators, decimals }) => {
  const whole = Math.floor(cents / 100);
  const fraction = cents % 100;
  // A printing with fewer decimals only for amounts that have no more.
  const shown = decimals === 0 && fraction !== 0 ? 2 : decimals === 1 && fraction % 10 !== 0 ? 2 : decimals;
  const integer = separators ? whole.toLocaleString('en-US') : String(whole);
  const text = shown === 0 ? integer : `${integer}.${String(fraction).padStart(2, '0').slice(0, shown)}`;
  return { value: cents / 100, text };
});
/** A line that is no price line (the oracle's own rule: it never names a price). */
const otherLine = fc.oneof(fc.string(), fc.constantFrom('Status: COMPLETED', 'Task ID: 42', 'Price:', 'Price: soon', 'Price: 12 dollars', 'the Price: 3 credits was quoted')).filter((line) => !/^\s*price:\s*[\d,]+(\.\d+)?\s+credits?\s*\.?\s*$/im.test(line));

describe('parsePriceText()', () => {
  it('reads 1,234.56 as 1234.56, the last price line of a text, and nothing from a text without one', () => {
    expect(parsePriceText('Price: 1,234.56 credits')).toBe(1234.56);
    expect(parsePriceText('Task ID: 9\nPrice: 10 credits\nStatus: done\r\nPrice: 12.5 credits\n')).toBe(12.5);
    expect(parsePriceText('Status: IN_PROGRESS')).toBeUndefined();
    expect(parsePriceText('Price: 12,34 credits')).toBeUndefined();
    expect(parsePriceText('')).toBeUndefined();
  });

  it('never throws on hostile text, and reads nothing or a finite amount of at least zero', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), hostileString, fc.array(fc.oneof(otherLine, fc.constantFrom('Price: 1,2,3 credits', 'Price: 9'.repeat(50), 'Price: 1e309 credits', 'Price: -5 credits', 'Price: NaN credits'))).map((lines) => lines.join('\n')));
    fc.assert(
      fc.property(text, (t) => {
        const credits = parsePriceText(t);
        expect(credits === undefined || (Number.isFinite(credits) && credits >= 0)).toBe(true);
      }),
      params(2_000),
    );
  });

  it('reads every amount exactly, wherever its line stands among other lines and line ends', () => {
    const entry = fc.oneof(otherLine.map((line) => ({ line, value: undefined as number | undefined })), amount.map(({ value, text }) => ({ line: `Price: ${text} credits`, value })));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), (entries, eol) => {
        const expected = entries.reduce<number | undefined>((last, { value }) => value ?? last, undefined);
        // A random line may hold a line break of its own: the lines as the parser will see them.
        const text = entries.map(({ line }) => line).join(eol);
        if (entries.some(({ line, value }) => value === undefined && /[\n\r\u2028\u2029]/.test(line))) return;
        expect(parsePriceText(text)).toBe(expected);
      }),
      params(2_000),
    );
  });
});
