import { describe, expect, it } from 'vitest';
import { assertOptions, callSafely, Checker, checkIds, CLIENT_RULES, credentialRule, isDotSegment, REQUEST_RULES, rule, ValidationError, waitRules } from '../../src/core/index.js';

function issues(value: unknown, rules = REQUEST_RULES): string[] {
  try {
    assertOptions('test()', value, rules);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((i) => `${i.path}: ${i.rule}`);
  }
}

describe('option rules: every option is checked when given', () => {
  it.each([
    ['a negative timeout', { timeout: -1 }],
    ['a NaN timeout', { timeout: Number.NaN }],
    ['a zero timeout', { timeout: 0 }],
    ['an infinite timeout', { timeout: Number.POSITIVE_INFINITY }],
    ['a timeout past the timer limit', { timeout: 2 ** 31 }],
    ['a string timeout', { timeout: '5000' }],
    ['a totalTimeout of -5', { totalTimeout: -5 }],
    ['a signal that is not one', { signal: 'x' }],
    ['a retry limit of 1.5', { retry: { limit: 1.5 } }],
    ['a retry policy that is not an object', { retry: 3 }],
    ['a header value with a line break', { headers: { 'x-a': 'b\r\nInjected: 1' } }],
    ['a header value that is a number', { headers: { 'x-a': 5 } }],
  ])('refuses %s, naming the option', (_name, value) => {
    const found = issues(value);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^options\./);
  });

  it('accepts every well-formed request option', () => {
    expect(issues({ signal: AbortSignal.timeout(1_000), timeout: 5_000, totalTimeout: 20_000, retry: { limit: 0, budgetMs: 0 }, headers: { 'x-trace': 'a' } })).toEqual([]);
    expect(issues({ retry: false })).toEqual([]);
    expect(issues(undefined)).toEqual([]);
  });

  it('refuses null and non-objects as options (no raw TypeError later)', () => {
    expect(issues(null)).toEqual(['options: an options object (or nothing)']);
    expect(issues('fast')).toEqual(['options: an options object (or nothing)']);
    expect(issues([])).toEqual(['options: an options object (or nothing)']);
  });

  it('refuses an unknown option and suggests the close one', () => {
    expect(issues({ timout: 5_000 })).toEqual(['options.timout: a known option (did you mean "timeout"?)']);
    expect(issues({ nonsense: 1 })[0]).toContain('one of: signal, timeout, totalTimeout, retry, headers');
  });

  it('checks callbacks, deadlines and poll delays of a wait', () => {
    const rules = { ...waitRules(100), onUpdate: rule.callback };
    expect(issues({ onUpdate: 5 }, rules)).toEqual(['options.onUpdate: a function']);
    expect(issues({ waitTimeout: Number.NaN }, rules)).toEqual(['options.waitTimeout: a number of milliseconds above 0, or false for no deadline']);
    expect(issues({ waitTimeout: false }, rules)).toEqual([]);
    // A poll delay of 0 polled one job a thousand times a second in 0.1.0.
    expect(issues({ poll: { minDelayMs: 0 } }, rules)).toEqual(['options.poll.minDelayMs: a finite number from 100 to 2147483647']);
    expect(issues({ poll: { growFactor: 0.5 } }, rules)).toEqual(['options.poll.growFactor: a finite number from 1 to 10']);
  });

  it('checks client options, and never echoes a credential it refuses', () => {
    const rules = { ...CLIENT_RULES, apiKey: credentialRule };
    expect(issues({ baseUrl: 'ftp://x', apiKey: 42 }, rules)).toEqual(['options.baseUrl: an absolute http(s) URL such as https://api.example.com', 'options.apiKey: a non-empty string, or a function returning one']);
    const error = (() => {
      try {
        assertOptions('new X()', { baseUrl: 'https://x.test', apiKey: ' ', onRequest: 'log' }, rules);
      } catch (e) {
        return e as ValidationError;
      }
      throw new Error('expected a ValidationError');
    })();
    expect(error.message).toContain('options.onRequest: expected a function');
    expect(error.message).toContain('options.apiKey');
  });
});

describe('ids are one path segment', () => {
  it.each(['', ' ', '.', '..', '%2e', '%2E%2e', '%252e%252e', '.%2e', 'a\ud800', '\udc00b', 'x\udbff\udbff'])('refuses %j', (id) => {
    const check = new Checker();
    check.id('id', id);
    expect(check.issues).toHaveLength(1);
  });

  it.each(['acme', 'a.b', '1.2.0', '...', '7c1f-9a', 'a%2Fb', '%', '😀', 'ü'])('accepts %j', (id) => {
    expect(isDotSegment(id)).toBe(false);
    expect(() => checkIds('x()', { id })).not.toThrow();
  });

  it('refuses a value that is not a string', () => {
    expect(() => checkIds('x()', { nodeId: 5 })).toThrow(ValidationError);
  });
});

describe('callSafely()', () => {
  it('swallows what a callback throws and what an async one rejects with', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    callSafely(() => {
      throw new Error('sync');
    });
    callSafely(async () => {
      throw new Error('async');
    });
    callSafely(undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off('unhandledRejection', onRejection);
    expect(rejections).toEqual([]);
  });
});
