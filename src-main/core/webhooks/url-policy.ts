// Webhook URL rules (interface §2.7/§6, decisions §7/§11): which URLs may be registered and which addresses
// a delivery may connect to. Shared by the HTTP layer (registration) and the safe undici agent (connect time).
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  /** Exact 'host:port' entries from --allow-webhook-host; these may use http or https and any address. */
  allowHosts: readonly string[];
  /** Our own API listener(s): always refused unless allow-listed, so a webhook cannot call back into the API. */
  ownListeners: readonly { host: string; port: number }[];
}

export type UrlVerdict = { ok: true; url: URL; allowListed: boolean } | { ok: false; reason: string };

/** Returns every address of a host name (A and AAAA). */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => {
  const found = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
};

// ipaddr.js files these under 'reserved'; a precise reason makes the 422 message and logs clearer.
const DOCUMENTATION_V4: readonly [ipaddr.IPv4, number][] = [
  ipaddr.IPv4.parseCIDR('192.0.2.0/24'),
  ipaddr.IPv4.parseCIDR('198.51.100.0/24'),
  ipaddr.IPv4.parseCIDR('203.0.113.0/24'),
];
const BENCHMARKING_V4 = ipaddr.IPv4.parseCIDR('198.18.0.0/15');
const DOCUMENTATION_V6 = ipaddr.IPv6.parseCIDR('2001:db8::/32');
// All allocated global unicast space is inside 2000::/3; ipaddr.js calls anything unlisted 'unicast',
// including never-routable space such as ::/96 (IPv4-compatible) and 4000::/2.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

function v4Reason(addr: ipaddr.IPv4): string | null {
  const range = addr.range();
  if (range === 'unicast') return null;
  if (range === 'reserved') {
    if (DOCUMENTATION_V4.some((cidr) => addr.match(cidr))) return 'documentation';
    if (addr.match(BENCHMARKING_V4)) return 'benchmarking';
  }
  return range;
}

function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = addr.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12, 16));
}

function v6Reason(addr: ipaddr.IPv6): string | null {
  if (addr.isIPv4MappedAddress()) {
    const inner = v4Reason(addr.toIPv4Address());
    // ::ffff:a.b.c.d is just a.b.c.d on a dual-stack socket, so a public embedded address is acceptable.
    return inner === null ? null : `ipv4Mapped ${inner}`;
  }
  // Translation/tunnel forms are refused even with a public embedded address (only plain unicast is allowed);
  // the embedded reason is named when there is one because that is the likely attack.
  const withEmbedded = (label: string): string => {
    const inner = v4Reason(embeddedV4(addr));
    return inner === null ? label : `${label} ${inner}`;
  };
  if (addr.match(NAT64_WELL_KNOWN)) return withEmbedded('NAT64');
  if (addr.match(NAT64_LOCAL)) return 'NAT64 local-use';
  const range = addr.range();
  if (range === '6to4') {
    const p = addr.parts;
    const inner = v4Reason(new ipaddr.IPv4([(p[1]! >> 8) & 0xff, p[1]! & 0xff, (p[2]! >> 8) & 0xff, p[2]! & 0xff]));
    return inner === null ? '6to4' : `6to4 ${inner}`;
  }
  if (range === 'rfc6145') return withEmbedded('ipv4Translated');
  if (range === 'reserved' && addr.match(DOCUMENTATION_V6)) return 'documentation';
  if (range !== 'unicast') return range;
  const p = addr.parts;
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return withEmbedded('ipv4Compatible');
  }
  if (!addr.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return null;
}

/** null = public unicast; otherwise a short reason. Anything that is not a valid IP literal is refused too. */
export function forbiddenAddressReason(ip: string): string | null {
  let literal = ip.trim();
  if (literal.startsWith('[') && literal.endsWith(']')) literal = literal.slice(1, -1);
  // net.isIP is strict (dotted-quad only), so inet_aton shorthands such as '127.1' never reach ipaddr.js's
  // lenient parser; zone ids ('fe80::1%eth0') are accepted by both.
  const family = isIP(literal);
  if (family === 0) return 'not an IP address';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(literal);
  } catch {
    return 'not an IP address';
  }
  return parsed.kind() === 'ipv4' ? v4Reason(parsed as ipaddr.IPv4) : v6Reason(parsed as ipaddr.IPv6);
}

// Special-use and internal names (RFC 6761, RFC 6762, RFC 8375, and common internal zones).
const FORBIDDEN_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'localdomain', 'arpa'];

/** Reason a (non-IP) host name is refused before any DNS lookup, or null. */
export function forbiddenHostNameReason(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (name === '') return 'empty host';
  for (const suffix of FORBIDDEN_NAME_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return `special-use name .${suffix}`;
  }
  // A single label is resolved through search domains, i.e. on the local network: never public.
  if (!name.includes('.')) return 'single-label host name';
  return null;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function defaultPort(protocol: string): number {
  return protocol === 'http:' ? 80 : 443;
}

/** Canonical host form used for 'host:port' comparisons: lowercase, no trailing dot, IPs normalised. */
function canonicalHost(host: string): string {
  const bare = stripBrackets(host.trim().toLowerCase()).replace(/\.+$/, '');
  if (isIP(bare) !== 0) {
    try {
      const parsed = ipaddr.process(bare); // unwraps ::ffff:a.b.c.d so both spellings compare equal
      return parsed.kind() === 'ipv6' ? `[${parsed.toNormalizedString()}]` : parsed.toString();
    } catch {
      return bare;
    }
  }
  return bare;
}

function splitHostPort(entry: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry.trim());
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1]!, port };
}

/** True when hostname:port exactly matches an --allow-webhook-host entry. */
export function isAllowListed(hostname: string, port: number, policy: UrlPolicy): boolean {
  const host = canonicalHost(hostname);
  return policy.allowHosts.some((entry) => {
    const parsed = splitHostPort(entry);
    return parsed !== null && parsed.port === port && canonicalHost(parsed.host) === host;
  });
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '[::]', '::']);

/** True when hostname:port (name or address) is one of our own API listeners. */
export function isOwnListener(hostname: string, port: number, policy: UrlPolicy): boolean {
  const host = canonicalHost(hostname);
  return policy.ownListeners.some((l) => {
    if (l.port !== port) return false;
    // A wildcard bind answers on every local address; the loopback ones are the ones we can name here
    // (other local addresses are private or, if public, indistinguishable from a remote host).
    if (WILDCARD_HOSTS.has(l.host.trim())) {
      const bare = stripBrackets(host);
      return bare === 'localhost' || (isIP(bare) !== 0 && ['loopback', 'unspecified'].includes(forbiddenAddressReason(bare) ?? ''));
    }
    return canonicalHost(l.host) === host;
  });
}

function authorityOf(raw: string): string {
  const afterScheme = raw.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:[/\\]*/, '');
  const end = afterScheme.search(/[/\\?#]/);
  return end === -1 ? afterScheme : afterScheme.slice(0, end);
}

/** Static checks: scheme, credentials, host form and IP literals. Does not touch DNS. */
export function checkWebhookUrlSyntax(raw: string, policy: UrlPolicy): UrlVerdict {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, reason: 'empty URL' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `scheme ${url.protocol} is not allowed` };
  }
  // 'https://example.com@127.0.0.1' style confusion: refuse any userinfo, even an empty one.
  if (url.username !== '' || url.password !== '' || authorityOf(raw).includes('@')) {
    return { ok: false, reason: 'credentials in URL are not allowed' };
  }
  if (url.hostname === '') return { ok: false, reason: 'empty host' };

  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  // Port 0 names no service: nothing could ever be delivered there.
  if (port === 0) return { ok: false, reason: 'port 0 is not a port a receiver can listen on' };
  const allowListed = isAllowListed(url.hostname, port, policy);
  if (allowListed) return { ok: true, url, allowListed: true };

  if (url.protocol !== 'https:') return { ok: false, reason: 'only https URLs are allowed' };
  if (isOwnListener(url.hostname, port, policy)) return { ok: false, reason: 'URL points at this service' };

  const bare = stripBrackets(url.hostname);
  if (isIP(bare) !== 0) {
    const reason = forbiddenAddressReason(bare);
    return reason === null ? { ok: true, url, allowListed: false } : { ok: false, reason: `address is ${reason}` };
  }
  const nameReason = forbiddenHostNameReason(bare);
  if (nameReason !== null) return { ok: false, reason: nameReason };
  return { ok: true, url, allowListed: false };
}

// Error codes that mean "cannot resolve right now" (offline, no answer) rather than "resolved to something bad".
const UNRESOLVABLE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ESERVFAIL', 'ENODATA', 'ETIMEOUT', 'ECONNREFUSED', 'EAI_NODATA', 'EAI_NONAME']);

/**
 * Registration-time check: syntax, then DNS. Any forbidden resolved address refuses the URL; an unresolvable
 * name is accepted (decisions §7) because the connect-time check in the safe agent still guards every delivery.
 */
export async function checkWebhookUrlForRegistration(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolver = systemResolver,
): Promise<UrlVerdict> {
  const verdict = checkWebhookUrlSyntax(raw, policy);
  if (!verdict.ok || verdict.allowListed) return verdict;
  const host = stripBrackets(verdict.url.hostname);
  if (isIP(host) !== 0) return verdict;

  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && UNRESOLVABLE_CODES.has(code)) return verdict;
    return { ok: false, reason: `host name could not be resolved${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  const port = verdict.url.port === '' ? defaultPort(verdict.url.protocol) : Number(verdict.url.port);
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason !== null) return { ok: false, reason: `host resolves to a forbidden address (${reason})` };
    if (isOwnListener(address, port, policy)) return { ok: false, reason: 'URL points at this service' };
  }
  return verdict;
}
