// A local runtime's history entries as the listing reads them (GET /history without /api/jobs):
// whatever an entry holds, it is read into a JobSummary without throwing, and a page is cut as asked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyPage } from '../../src/cloud/shared/job-reader.js';
import { params } from './helpers.js';

const STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
const message = fc.tuple(fc.constantFrom('execution_start', 'execution_success', 'execution_error', 'execution_interrupted', 'executed'), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ timestamp: fc.oneof(fc.double(), fc.integer()), exception_message: fc.jsonValue({ maxDepth: 1 }) })));
const entry = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({
    prompt: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.tuple(fc.oneof(fc.integer(), fc.jsonValue({ maxDepth: 1 })), fc.string(), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 2 }))),
    outputs: fc.jsonValue({ maxDepth: 3 }),
    status: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ status_str: fc.oneof(fc.constantFrom('success', 'error'), fc.jsonValue({ maxDepth: 1 })), completed: fc.jsonValue({ maxDepth: 0 }), messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })) })),
  }, { requiredKeys: [] }),
);

describe('historyPage() (a local runtime without GET /api/jobs)', () => {
  it('reads any history into summaries, filtered and cut as asked', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), entry, { maxKeys: 6 }),
        fc.subarray([...STATUSES]),
        fc.nat(4),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('asc', 'desc'),
        fc.constantFrom('createdAt', 'executionTime'),
        (raw, statuses, offset, limit, sortOrder, sortBy) => {
          const history = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
          const page = historyPage({ running: [], pending: [] }, { history, complete: true }, { status: statuses, offset, limit, sortOrder, sortBy }, 100);
          expect(page.jobs.length).toBeLessThanOrEqual(limit);
          for (const job of page.jobs) {
            expect(Object.keys(history)).toContain(job.promptId);
            expect(statuses).toContain(job.status);
            for (const time of [job.startedAt, job.endedAt, job.durationMs, job.createdAt]) if (time !== undefined) expect(Number.isFinite(time) && time >= 0).toBe(true);
            if (job.error) expect(typeof job.error.message).toBe('string');
          }
          expect(page.hasMore).toBe(offset + page.jobs.length < (page.total ?? 0));
        },
      ),
      params(500),
    );
  });
});
