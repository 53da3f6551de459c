import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scrubSecrets, SecretSet } from '../../src/core/index.js';
import { params } from './helpers.js';

// Every socket frame is scrubbed by SecretSet.scrub(), which keeps its sorted secrets between
// calls: its answer must stay exactly scrubSecrets' over the secrets known at that moment, however
// secrets were added, overlapped (one inside another) or evicted in between.
describe('SecretSet.scrub()', () => {
  const alphabet = fc.constantFrom('a', 'b', 'k', 'e', 'y', '-', '0');
  const secret = fc.string({ unit: alphabet, minLength: 1, maxLength: 8 });
  const step = fc.oneof(
    fc.record({ add: fc.array(secret, { maxLength: 4 }) }),
    fc.record({ text: fc.string({ unit: fc.oneof(alphabet, fc.constantFrom('[', 'R', 'é', '"')), maxLength: 40 }) }),
  );

  it('answers a string as scrubSecrets does with the secrets known at that moment, after any sequence of adds', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.integer({ min: 0, max: 80 }), (steps, filler) => {
        const set = new SecretSet();
        // Push some secrets out of the 64 remembered, so eviction happens between scrubs too.
        set.add(...Array.from({ length: filler }, (_, i) => `filler-secret-${i}`));
        for (const s of steps) {
          if ('add' in s) set.add(...s.add);
          else {
            // Secrets that merely contain a filler are as good as any: the expected answer is computed alike.
            const text = `${s.text}filler-secret-${filler - 1}`;
            expect(set.scrub(text)).toBe(scrubSecrets(text, set.list));
            expect(set.scrub(s.text, 6)).toBe(scrubSecrets(s.text, set.list, 6));
          }
        }
      }),
      params(300),
    );
  });

  it('replaces a secret added after earlier scrubs, and the longer of two overlapping secrets whole', () => {
    const set = new SecretSet();
    set.add('key-1234');
    expect(set.scrub('a key-1234-extra b')).toBe('a [REDACTED]-extra b');
    set.add('key-1234-extra');
    expect(set.scrub('a key-1234-extra b')).toBe('a [REDACTED] b');
  });
});
