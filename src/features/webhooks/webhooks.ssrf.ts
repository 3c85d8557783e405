import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Errors } from '../../platform/errors/errors.ts';

/**
 * SSRF guard of webhook URLs (docs/decisions/0098-webhook-url-ssrf-rules.md). Addresses are classified by
 * ipaddr.js: anything but plain public unicast (loopback, private, link-local and the metadata
 * address 169.254.169.254, CGNAT, multicast, reserved, unspecified, IPv4-mapped, NAT64, 6to4,
 * Teredo, ...) is refused. Checked twice: when a URL is saved (here) and inside the socket's own
 * DNS lookup at every delivery (request-filtering-agent), so a name that resolves somewhere else
 * later (DNS rebinding) is caught on the address actually connected to.
 */

/** Node's callback `dns.lookup`; tests pass their own resolver for names like `rebind.test`. */
export type Lookup = typeof dnsLookup;

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: http:// and private targets admitted (local development, tests). */
  allowPrivate: boolean;
  lookup?: Lookup;
}

export const MAX_URL_LENGTH = 2048;

/** Why an address is not a public one (ipaddr.js range name), or null when it is. */
export function nonPublicRange(address: string): string | null {
  try {
    const range = ipaddr.parse(address).range();
    return range === 'unicast' ? null : range;
  } catch {
    return 'unparseable';
  }
}

function resolveAll(lookup: Lookup, host: string): Promise<LookupAddress[]> {
  const options: LookupAllOptions = { all: true };
  return new Promise((resolve, reject) => {
    lookup(host, options, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

const invalid = (message: string) => Errors.invalidField('body.url', message);

/**
 * Checks a subscription URL and returns it normalised (WHATWG URL), or throws a 400 naming
 * `body.url`: https only, no credentials, and a host that is, or resolves only to, public addresses.
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute URL');
  }
  const allowed = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) throw invalid(`must use ${allowed.join(' or ')}`);
  if (url.username !== '' || url.password !== '') throw invalid('must not contain credentials');
  if (url.hash !== '') throw invalid('must not contain a fragment');
  const normalised = url.toString();
  if (normalised.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  if (policy.allowPrivate) return normalised;

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const range = nonPublicRange(host);
    if (range) throw invalid(`must be public: ${host} is a ${range} address`);
    return normalised;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(policy.lookup ?? dnsLookup, host);
  } catch {
    throw invalid(`must be public: ${host} does not resolve`);
  }
  if (addresses.length === 0) throw invalid(`must be public: ${host} does not resolve`);
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range) throw invalid(`must be public: ${host} resolves to ${address}, a ${range} address`);
  }
  return normalised;
}

/** The agents every delivery goes through: the address is checked again at connect time. */
export function deliveryAgents(allowPrivate: boolean) {
  const options = {
    allowPrivateIPAddress: allowPrivate,
    allowMetaIPAddress: false,
    keepAlive: true,
    maxSockets: 64,
  };
  return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
}
