import { CliError, type ErrorContext } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * The environment variables the CLI reads: the same names as the README and `examples/demo.ts`.
 * Credentials are read from here only, never from a flag (a flag lands in shell history and in
 * `ps`).
 *
 * @example
 * ```ts
 * process.env[ENV.apiKey]; // the cloud API key
 * ```
 */
export const ENV = Object.freeze({
  cloudUrl: 'GRAPHCLOUD_CLOUD_URL',
  apiKey: 'GRAPHCLOUD_API_KEY',
  registryUrl: 'GRAPHCLOUD_REGISTRY_URL',
  registryToken: 'GRAPHCLOUD_REGISTRY_TOKEN',
  /** A publisher's personal access token, for `registry nodes publish`. */
  registryPat: 'GRAPHCLOUD_REGISTRY_PAT',
  proxyUrl: 'GRAPHCLOUD_PROXY_URL',
  proxyToken: 'GRAPHCLOUD_PROXY_TOKEN',
  simPort: 'GRAPHCLOUD_SIM_PORT',
  /** The Redis of the run queue (`batch --redis`, `worker`); its password is a credential. */
  redisUrl: 'GRAPHCLOUD_REDIS_URL',
});

/** Which service a command talks to. */
export type Service = 'cloud' | 'registry' | 'proxy';

/** The connection flag of each service, with the variable it overrides. */
export const URL_FLAGS: Readonly<Record<Service, { flag: string; variable: string; label: string; keyVariable: string }>> = Object.freeze({
  cloud: { flag: 'cloud-url', variable: ENV.cloudUrl, label: 'cloud', keyVariable: ENV.apiKey },
  registry: { flag: 'registry-url', variable: ENV.registryUrl, label: 'registry', keyVariable: ENV.registryToken },
  proxy: { flag: 'proxy-url', variable: ENV.proxyUrl, label: 'media proxy', keyVariable: ENV.proxyToken },
});

/**
 * Where and how to reach each service: a flag first, then the environment.
 *
 * @example
 * ```ts
 * const config = new Config(process.env, { 'cloud-url': 'http://127.0.0.1:8188' });
 * const { baseUrl, apiKey } = config.cloud();
 * ```
 */
export class Config {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #flags: Readonly<Record<string, unknown>>;

  constructor(env: Readonly<Record<string, string | undefined>>, flags: Readonly<Record<string, unknown>>) {
    this.#env = env;
    this.#flags = flags;
  }

  /** Every credential configured, so the output can redact them wherever they turn up. */
  secrets(): string[] {
    const keys = [ENV.apiKey, ENV.registryToken, ENV.registryPat, ENV.proxyToken].map((name) => this.#get(name)).filter((v): v is string => v !== undefined);
    return [...keys, ...redisSecrets(this.#get(ENV.redisUrl))];
  }

  /** The cloud's URL and API key (the key is optional: a local runtime needs none). */
  cloud(): { baseUrl: string; apiKey: string | undefined } {
    return { baseUrl: this.url('cloud'), apiKey: this.#get(ENV.apiKey) };
  }

  /** The registry's URL and token (optional for reads). */
  registry(): { baseUrl: string; token: string | undefined } {
    return { baseUrl: this.url('registry'), token: this.#get(ENV.registryToken) };
  }

  /** The media proxy's URL and credential: its Bearer token, else the platform API key as `X-API-Key`. */
  proxy(): { baseUrl: string; token?: string; apiKey?: string } {
    const baseUrl = this.url('proxy');
    const token = this.#get(ENV.proxyToken);
    if (token) return { baseUrl, token };
    const apiKey = this.#get(ENV.apiKey);
    return apiKey ? { baseUrl, apiKey } : { baseUrl };
  }

  /** A personal access token of a registry publisher. */
  registryPat(): string | undefined {
    return this.#get(ENV.registryPat);
  }

  /** What error messages need to name the service's variables. */
  errorContext(service: Service): ErrorContext {
    const { label, variable, keyVariable } = URL_FLAGS[service];
    const keyMissing = service === 'cloud' ? !this.#get(ENV.apiKey) : service === 'proxy' ? !this.#get(ENV.proxyToken) && !this.#get(ENV.apiKey) : !this.#get(ENV.registryToken);
    return { service: label, urlVariable: variable, keyVariable, keyMissing };
  }

  /** The service's URL from its flag or variable; a usage `CliError` says how to set it. */
  url(service: Service): string {
    const { flag, variable, label } = URL_FLAGS[service];
    const value = this.#flags[flag];
    const url = typeof value === 'string' && value !== '' ? value : this.#get(variable);
    if (!url) throw missingUrl(label, flag, variable);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw missingUrl(label, flag, variable, url);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw missingUrl(label, flag, variable, url);
    return url;
  }

  #get(name: string): string | undefined {
    const value = this.#env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }
}

/** The password (and the whole URL) of a Redis URL that holds one: printed nowhere. */
function redisSecrets(url: string | undefined): string[] {
  const match = url === undefined ? null : /^rediss?:\/\/[^:@/]*:([^@/]+)@/.exec(url);
  if (!match) return [];
  let password = match[1]!;
  try {
    password = decodeURIComponent(password);
  } catch {
    // Kept as written.
  }
  return [...new Set([match[1]!, password])];
}

function missingUrl(label: string, flag: string, variable: string, received?: string): CliError {
  const message = received === undefined ? `No ${label} URL is set.` : `The ${label} URL "${received}" is not an http(s) URL.`;
  return new CliError(message, `Set ${variable} (or pass --${flag} <url>); \`graphcloud sim\` starts a local simulator.`, EXIT.usage);
}
