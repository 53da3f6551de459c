import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  HttpClient,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/core/index.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://api.test';
const { server } = useMsw();
const client = () => new HttpClient({ baseUrl: BASE, retry: false });

async function failure(status: number, body: BodyInit | null, headers: Record<string, string> = {}): Promise<ApiError> {
  server.use(http.get(`${BASE}/thing`, () => new HttpResponse(body, { status, headers })));
  const error = await client().request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const json = (value: unknown) => JSON.stringify(value);

describe('HttpClient error mapping', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PaymentRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
  ])('maps status %i to its class', async (status, ErrorClass) => {
    const error = await failure(status, json({ error: 'x', message: 'nope' }), { 'content-type': 'application/json' });
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.status).toBe(status);
    expect(error.method).toBe('GET');
    expect(error.url).toBe(`${BASE}/thing`);
  });

  it('keeps an unlisted status as a plain ApiError', async () => {
    const error = await failure(418, null);
    expect(error.constructor).toBe(ApiError);
  });

  it('reads {error, message}', async () => {
    const error = await failure(400, json({ error: 'invalid_star', message: 'star must be 1..5' }));
    expect(error.code).toBe('invalid_star');
    expect(error.message).toContain('star must be 1..5');
    expect(error.body).toEqual({ error: 'invalid_star', message: 'star must be 1..5' });
  });

  it('reads {error: "", message} without an empty code', async () => {
    const error = await failure(403, json({ error: '', message: 'Permission denied' }));
    expect(error.code).toBeUndefined();
    expect(error.message).toContain('Permission denied');
  });

  it('reads {message} alone', async () => {
    const error = await failure(401, json({ message: 'Unauthorized' }));
    expect(error.message).toContain('Unauthorized');
    expect(error.code).toBeUndefined();
  });

  it('reads {message, details} and keeps details', async () => {
    const error = await failure(400, json({ message: 'bad video', details: ['duration out of range'] }));
    expect(error.details).toEqual(['duration out of range']);
    expect(error.message).toContain('bad video');
  });

  it('reads {error: {type, message}}', async () => {
    const error = await failure(400, json({ error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '' }, node_errors: {} }));
    expect(error.code).toBe('prompt_no_outputs');
    expect(error.message).toContain('Prompt has no outputs');
  });

  it('reads an empty body', async () => {
    const error = await failure(404, null);
    expect(error.body).toBeUndefined();
    expect(error.message).toMatch(/^404 /);
  });

  it('keeps a short excerpt of an HTML 502 page', async () => {
    const page = `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${'<p>filler</p>'.repeat(200)}</body></html>`;
    const error = await failure(502, page, { 'content-type': 'text/html' });
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toContain('502 Bad Gateway');
    expect(error.message.length).toBeLessThan(400);
    expect(error.body).toBe(page);
  });

  it('carries the request id the server sends', async () => {
    const error = await failure(500, null, { 'x-request-id': 'req_42' });
    expect(error.requestId).toBe('req_42');
    expect(error.message).toContain('req_42');
  });

  it('serialises to JSON with its fields', async () => {
    const error = await failure(409, json({ error: 'dup', message: 'exists' }));
    const plain = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(plain).toMatchObject({ name: 'ConflictError', status: 409, code: 'dup', method: 'GET' });
  });
});

describe('HttpClient error mapping: HTML pages', () => {
  it('takes the excerpt from the text of the page, not its styles or scripts', async () => {
    const page = `<html><head><style>body{font-family:sans-serif}${'.x{color:red}'.repeat(40)}</style><script>var a = 1;</script><title>502 Bad Gateway</title></head><body><h1>Bad gateway &amp; friends</h1></body></html>`;
    const error = await failure(502, page, { 'content-type': 'text/html' });
    expect(error.message).toContain('502 Bad Gateway Bad gateway & friends');
    expect(error.message).not.toContain('color:red');
    expect(error.message).not.toContain('var a');
    expect(error.body).toBe(page);
  });
});
