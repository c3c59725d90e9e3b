/**
 * Where webhooks may deliver: http(s) URLs whose host is a public address. Loopback, private,
 * link-local (cloud metadata at 169.254.169.254 among them), unique-local, carrier-grade NAT,
 * multicast and reserved addresses are refused unless the deployment allows private networks.
 * The address check (ipaddr.js's range table, not a hand-kept list) is made on the addresses the
 * connection actually uses: `guardedLookup` is the lookup of the delivery agent's sockets, so a
 * name that resolved to a public address when the webhook was created and to a private one later
 * (DNS rebinding) is still refused.
 */
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../shared/errors.ts';

/** A delivery or a creation refused for its destination. */
export class RefusedDestination extends Error {
  readonly code = 'WEBHOOK_REFUSED_DESTINATION';
}

/** How long creating a webhook waits for its host name to resolve. */
const RESOLVE_BOUND_MS = 5000;

/** Whether `address` (IPv4 or IPv6 text) is an ordinary public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // an IPv4-mapped IPv6 address is judged as the IPv4 address it carries
  return ipaddr.process(address).range() === 'unicast';
}

function refusal(host: string, address: string): RefusedDestination {
  return new RefusedDestination(`${host} resolves to ${address}, a loopback, private, link-local or reserved address`);
}

/** The host of a URL as an address when it is a literal one (`[::1]` → `::1`). */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

/** Refuses a URL whose host is an address literal outside the allowed ones (sockets skip the lookup for those). */
export function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  const address = literalAddress(url.hostname);
  if (address && !allowPrivate && !isPublicAddress(address)) throw refusal(url.hostname, address);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` for sockets that refuses names resolving to any address outside the allowed ones. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) return callback(refusal(hostname, refused.address) as NodeJS.ErrnoException, []);
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * A webhook URL as given at creation or update: http(s), no credentials in it, and (unless private
 * networks are allowed) a host that is a public address or a name that resolves only to public
 * ones. A name that does not resolve now is accepted: the receiver may not be up yet, and every
 * delivery checks again.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const invalid = (message: string) => new ValidationError(`url ${message}`, [{ field: 'body.url', message }]);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must be an http or https URL');
  if (url.username || url.password) throw invalid('must not carry credentials');
  try {
    checkLiteralHost(url, allowPrivate);
    if (!allowPrivate && !literalAddress(url.hostname)) {
      const addresses = await resolveBounded(url.hostname);
      const refused = addresses.find((address) => !isPublicAddress(address));
      if (refused) throw refusal(url.hostname, refused);
    }
  } catch (error) {
    if (error instanceof RefusedDestination) throw invalid(`is refused: ${error.message}`);
    throw error;
  }
  return url.toString();
}

/** The addresses of `host`, or none when it does not resolve within the bound. */
function resolveBounded(host: string): Promise<string[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_BOUND_MS);
    lookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? [] : addresses.map((entry) => entry.address));
    });
  });
}
