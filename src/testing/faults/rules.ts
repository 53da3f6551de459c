import type { FailureRule, FailureRuleHandle, SimulatorArea } from '../types/public.js';

/**
 * A fault's answer to one request: a status, `Retry-After` seconds and a body (an object is
 * JSON, a string is text, `null` is empty).
 *
 * @example
 * const answer: FaultAnswer = { status: 503, retryAfter: 1, body: { message: 'Simulated fault: HTTP 503' } };
 */
export interface FaultAnswer {
  status: number;
  retryAfter?: number | undefined;
  body: unknown;
}

/**
 * What the faults decided for one request: a delay, then possibly an answer in place of the route's.
 *
 * @example
 * const fired: FiredFault = { delayMs: 0, answer: { status: 503, retryAfter: 1, body: { message: 'x' } } };
 */
export interface FiredFault {
  delayMs: number;
  /** Answered instead of the route; none for a delay-only rule. */
  answer?: FaultAnswer;
  /** Hold the body of the answer (the route's, or `answer`) this long after its headers. */
  stallBodyMs?: number;
}

interface InstalledRule {
  rule: FailureRule;
  remaining: number | undefined;
  hits: number;
}

/**
 * The answer of a failing status: `Retry-After` defaults to 1 with 429 and 503, the body to `{message}`.
 *
 * @example
 * faultAnswer(503); // { status: 503, retryAfter: 1, body: { message: 'Simulated fault: HTTP 503' } }
 */
export function faultAnswer(status: number, retryAfter?: number, body?: unknown): FaultAnswer {
  const defaultRetry = status === 429 || status === 503 ? 1 : undefined;
  return {
    status,
    retryAfter: retryAfter ?? defaultRetry,
    body: body === undefined ? { message: `Simulated fault: HTTP ${status}` } : body,
  };
}

/**
 * The installed failure rules, in installation order; the first matching rule fires.
 *
 * @example
 * const rules = new FailureRules(seededRandom(1));
 * rules.install({ path: '/api/prompt', status: 503, times: 1 });
 * rules.match('cloud', 'POST', '/api/prompt'); // { delayMs: 0, answer: { status: 503, ... } }
 */
export class FailureRules {
  #rules: InstalledRule[] = [];
  readonly #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** Installs a rule; its handle counts hits and removes it. */
  install(rule: FailureRule): FailureRuleHandle {
    const installed: InstalledRule = { rule, remaining: rule.times, hits: 0 };
    this.#rules.push(installed);
    return {
      get hits() {
        return installed.hits;
      },
      remove: () => {
        this.#rules = this.#rules.filter((candidate) => candidate !== installed);
      },
    };
  }

  /** Removes every rule. */
  clear(): void {
    this.#rules = [];
  }

  /** The first rule matching a request fires: counted rules are consumed, rated ones drawn from the seeded generator. */
  match(area: SimulatorArea, method: string, path: string): FiredFault | undefined {
    for (const installed of this.#rules) {
      const { rule } = installed;
      if (rule.area !== undefined && rule.area !== area) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (!pathMatches(rule.path, path)) continue;
      if (installed.remaining !== undefined) {
        if (installed.remaining <= 0) continue;
        installed.remaining -= 1;
      } else if (rule.rate !== undefined && this.#random() >= rule.rate) {
        continue;
      }
      installed.hits += 1;
      const fired: FiredFault = { delayMs: rule.delayMs ?? 0 };
      if (rule.stallBodyMs !== undefined) fired.stallBodyMs = rule.stallBodyMs;
      if (rule.status !== undefined) fired.answer = faultAnswer(rule.status, rule.retryAfter, rule.body);
      return fired;
    }
    return undefined;
  }
}

function pathMatches(pattern: string | RegExp | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return path.startsWith(pattern);
  pattern.lastIndex = 0;
  return pattern.test(path);
}
