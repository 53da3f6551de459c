import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/index.js';
import { useMsw } from '../helpers/msw.js';

const BASE = 'https://cloud.test';
const { server } = useMsw();
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gc-uploads-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('cloud.files.uploadMask() from a path', () => {
  it('streams the platform multipart encoding with its exact content-length', async () => {
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    await writeFile(join(dir, 'mask.png'), bytes);
    let received: { length: string | null; type: string | null; size: number; form: FormData } | undefined;
    server.use(
      http.post(`${BASE}/api/upload/mask`, async ({ request }) => {
        const raw = await request.clone().arrayBuffer();
        received = { length: request.headers.get('content-length'), type: request.headers.get('content-type'), size: raw.byteLength, form: await request.formData() };
        return HttpResponse.json({ name: 'mask.png', subfolder: '' });
      }),
    );
    const cloud = new CloudClient({ baseUrl: BASE, apiKey: 'sk-up' });
    await cloud.files.uploadMask(join(dir, 'mask.png'), { originalRef: { name: 'photo.png', subfolder: '' }, overwrite: true });
    expect(received?.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(received?.length).toBe(String(received?.size));
    const file = received?.form.get('image') as File;
    expect(file.name).toBe('mask.png');
    expect(file.type).toBe('image/png');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    expect(JSON.parse(String(received?.form.get('original_ref')))).toEqual({ filename: 'photo.png', subfolder: '', type: 'input' });
    expect(received?.form.get('overwrite')).toBe('true');
    await cloud.close();
  });
});
