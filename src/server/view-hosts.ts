/**
 * The origins `/api/view` follows the cloud's redirects to (its storage host, where a signed URL
 * points; docs/wire-protocol.md#redirects-and-credentials): those of the `viewOrigins` option
 * when given; otherwise the first one the cloud redirects to, learnt once per instance. An
 * address on loopback, a private or link-local range (where a redirect would reach the relay's
 * own network: a metadata service, an admin port) is refused unless listed, or unless the cloud
 * itself is on one (a local setup: the simulator, a local runtime).
 *
 * @example
 * ```ts
 * const hosts = new ViewHosts(config.viewOrigins, cloudUrl);
 * const refused = hosts.check(new URL(location)); // undefined when the hop may be followed
 * ```
 */
export class ViewHosts {
  readonly #listed: ReadonlySet<string> | undefined;
  readonly #localCloud: boolean;
  #learnt: string | undefined;

  constructor(listed: ReadonlySet<string> | undefined, cloudUrl: string) {
    this.#listed = listed;
    this.#localCloud = isInternalHost(new URL(cloudUrl).hostname);
  }

  /** Why a hop to this URL is not followed, or `undefined` when it may be (it is then learnt when nothing was listed). */
  check(url: URL): string | undefined {
    if (this.#listed) return this.#listed.has(url.origin) ? undefined : `${url.origin} is not one of the relay's viewOrigins`;
    if (isInternalHost(url.hostname) && !this.#localCloud) return `${url.origin} is a loopback, private or link-local address (list it in the viewOrigins option to allow it)`;
    this.#learnt ??= url.origin;
    return this.#learnt === url.origin ? undefined : `${url.origin} is not the storage host the cloud redirected to before (${this.#learnt}; the viewOrigins option lists others)`;
  }
}

/**
 * True for a host name that is loopback, private, link-local or unspecified, written as such (an
 * IP literal or `localhost`): names that resolve there are not looked up.
 */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (!host.includes(':')) return false;
  // IPv6: loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), and IPv4 mapped.
  if (host === '::1' || host === '::') return true;
  if (/^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host)) return true;
  const mapped = /^::ffff:(.+)$/.exec(host);
  if (mapped?.[1]) return mapped[1].includes('.') ? isInternalHost(mapped[1]) : isInternalHost(hexToV4(mapped[1]));
  return false;
}

function hexToV4(hex: string): string {
  const [high = 0, low = 0] = hex.split(':').map((part) => parseInt(part, 16));
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
