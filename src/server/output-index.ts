import { listOutputFiles } from '../cloud/shared/outputs.js';
import { readOutputs } from '../cloud/shared/wire.js';
import { readAnswer } from './body.js';
import type { RelayConfig } from './config.js';
import type { UpstreamClient } from './upstream.js';

// The routes that name a finished job's outputs, in order (docs/wire-protocol.md#cloud-outputs-files-and-uploads).
const OUTPUT_ROUTES = ['/api/jobs/{id}', '/api/history_v2/{id}', '/history/{id}'];
// A miss within this long of the last reading does not read again (a browser asking for files
// that are not there must not turn each request into upstream reads).
const REREAD_AFTER_MS = 1_000;
const MAX_OUTPUTS_BYTES = 16 * 1024 * 1024;

/**
 * A file as `/api/view` names it.
 *
 * @example
 * ```ts
 * const ref: ViewRef = { filename: 'out_00001_.png', subfolder: '', type: 'output' };
 * ```
 */
export interface ViewRef {
  filename: string;
  subfolder: string;
  type: string;
}

interface Entry {
  at: number;
  files: Set<string>;
}

/**
 * Which files are outputs of which job, read upstream with the key and remembered briefly per
 * instance (bounded in entries and age): `/api/view` serves a file only to the holder of a token
 * of the job that made it.
 *
 * @example
 * ```ts
 * const index = new OutputIndex(config, upstream);
 * await index.has(promptId, { filename: 'out_00001_.png', subfolder: '', type: 'output' });
 * ```
 */
export class OutputIndex {
  readonly #config: RelayConfig;
  readonly #upstream: UpstreamClient;
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<Entry>>();

  constructor(config: RelayConfig, upstream: UpstreamClient) {
    this.#config = config;
    this.#upstream = upstream;
  }

  /** True when the file is an output of the job (read upstream when not known yet). */
  async has(promptId: string, ref: ViewRef): Promise<boolean> {
    const key = fileKey(ref);
    const known = this.#entries.get(promptId);
    const fresh = known && Date.now() - known.at < this.#config.outputsCacheMs;
    if (fresh && known.files.has(key)) return true;
    if (fresh && Date.now() - known.at < REREAD_AFTER_MS) return false;
    return (await this.#load(promptId)).files.has(key);
  }

  /** Forgets everything (the relay closed). */
  clear(): void {
    this.#entries.clear();
  }

  #load(promptId: string): Promise<Entry> {
    const pending = this.#loading.get(promptId);
    if (pending) return pending;
    const loading = this.#read(promptId).finally(() => this.#loading.delete(promptId));
    this.#loading.set(promptId, loading);
    return loading;
  }

  async #read(promptId: string): Promise<Entry> {
    const files = new Set<string>();
    for (const route of OUTPUT_ROUTES) {
      const response = await this.#upstream.send({ method: 'GET', upstream: 'cloud', path: route.replace('{id}', encodeURIComponent(promptId)) });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        continue;
      }
      const text = await readAnswer(response, MAX_OUTPUTS_BYTES);
      let body: unknown;
      try {
        body = text === undefined ? undefined : JSON.parse(text);
      } catch {
        continue;
      }
      const outputs = readOutputs(body, promptId);
      if (!outputs) continue;
      for (const { ref } of listOutputFiles(outputs)) files.add(fileKey({ filename: ref.filename, subfolder: ref.subfolder ?? '', type: ref.type ?? 'output' }));
      break;
    }
    const entry = { at: Date.now(), files };
    this.#entries.delete(promptId);
    this.#entries.set(promptId, entry);
    if (this.#entries.size > this.#config.outputsCacheSize) this.#entries.delete(this.#entries.keys().next().value as string);
    return entry;
  }
}

function fileKey(ref: ViewRef): string {
  return JSON.stringify([ref.type, ref.subfolder, ref.filename]);
}
