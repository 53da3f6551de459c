import type * as z from 'zod/mini';
import { ResponseValidationError } from './errors/response-validation-error.js';
import { redactUrl, scrubSecrets } from './redact.js';

/** Formats a zod issue path as `versions[2].status`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** Validates a response body at the boundary; a mismatch names the field and keeps the raw body. */
export function parseResponse<S extends z.ZodMiniType>(schema: S, body: unknown, method: string, url: string, secrets: readonly string[] = []): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  // Redaction only on the failure path: a success body is the caller's data, returned as sent.
  const problems = result.error.issues.slice(0, 5).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const field = formatPath(result.error.issues[0]?.path ?? []);
  throw new ResponseValidationError({ field, problems, body: scrubSecrets(body, secrets), method, url: redactUrl(url) });
}
