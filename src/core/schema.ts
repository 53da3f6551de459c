import type * as z from 'zod/mini';
import { ResponseValidationError } from './errors/response-validation-error.js';
import { redactFields, redactUrl, scrubSecrets } from './redact.js';

/** Formats a zod issue path as `versions[2].status`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** Validates a response body at the boundary; a mismatch names the field and keeps the raw body. */
export function parseResponse<S extends z.ZodMiniType>(schema: S, body: unknown, method: string, url: string, secrets: readonly string[] = [], secretFields: readonly string[] = []): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // Redaction only on the failure path: a success body is the caller's data, returned as sent.
  const issues = result.error.issues.flatMap((issue) => explain(issue, body));
  // A field name is the server's too: one may be a credential it echoed.
  const problems = issues.slice(0, 5).map((issue) => scrubSecrets(`${formatPath(issue.path)}: ${issue.message}`, secrets));
  const field = scrubSecrets(formatPath(issues[0]?.path ?? []), secrets);
  throw new ResponseValidationError({ field, problems, body: redactFields(scrubSecrets(body, secrets), secretFields), method, url: redactUrl(url) });
}

interface Issue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  errors?: readonly (readonly Issue[])[];
}

// A union (a body with or without a `data` wrapper) reports one issue at its own path; the field
// that failed is inside the branch the body followed furthest (the most path segments present in
// the body), then the deepest one; on a tie the later branch, the plainer reading of a body.
function explain(issue: Issue, body: unknown): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  let best: readonly Issue[] | undefined;
  let score = [-1, -1];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first) continue;
    const path = [...issue.path, ...first.path];
    const candidate = [presentDepth(body, path), path.length];
    if (candidate[0]! > score[0]! || (candidate[0] === score[0] && candidate[1]! >= score[1]!)) {
      best = branch;
      score = candidate;
    }
  }
  if (!best) return [issue];
  return best.flatMap((inner) => explain({ ...inner, path: [...issue.path, ...inner.path] }, body));
}

function presentDepth(body: unknown, path: readonly PropertyKey[]): number {
  let depth = 0;
  let current = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !(key in current)) break;
    current = (current as Record<PropertyKey, unknown>)[key];
    depth += 1;
  }
  return depth;
}
