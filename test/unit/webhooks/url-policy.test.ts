// SSRF corpus for the webhook URL rules (interface §2.7/§6, decisions §7): bypass notations must be refused,
// public URLs accepted, and registration-time DNS answers checked.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  checkWebhookUrlForRegistration,
  checkWebhookUrlSyntax,
  forbiddenAddressReason,
} from '../../../src-main/core/webhooks/url-policy';
import type { Resolver, UrlPolicy } from '../../../src-main/core/webhooks/url-policy';

const policy: UrlPolicy = { allowHosts: [], ownListeners: [{ host: '127.0.0.1', port: 4010 }] };

// [raw URL, why it is listed, expected reason]
const REFUSED: [string, string, string][] = [
  ['https://2130706433/', 'decimal IPv4 = 127.0.0.1', 'address is loopback'],
  ['https://0x7f000001/', 'hex IPv4', 'address is loopback'],
  ['https://0x7f.1/', 'hex short IPv4', 'address is loopback'],
  ['https://0177.0.0.1/', 'octal IPv4', 'address is loopback'],
  ['https://127.1/', 'short IPv4', 'address is loopback'],
  ['https://127.0.0.1/', 'loopback', 'address is loopback'],
  ['https://127.0.0.1./', 'loopback, trailing dot', 'address is loopback'],
  ['https://127.255.255.254:8443/', 'loopback /8', 'address is loopback'],
  ['https://0/', 'zero = 0.0.0.0', 'address is unspecified'],
  ['https://0.0.0.0/', 'unspecified', 'address is unspecified'],
  ['https://0.1.2.3/', '0.0.0.0/8', 'address is unspecified'],
  ['https://[::1]/', 'IPv6 loopback', 'address is loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'IPv6 loopback long form', 'address is loopback'],
  ['https://[::]/', 'IPv6 unspecified', 'address is unspecified'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback', 'address is ipv4Mapped loopback'],
  ['https://[::ffff:7f00:1]/', 'IPv4-mapped loopback, hex', 'address is ipv4Mapped loopback'],
  ['https://[0:0:0:0:0:ffff:7f00:1]/', 'IPv4-mapped loopback, long', 'address is ipv4Mapped loopback'],
  ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped private', 'address is ipv4Mapped private'],
  ['https://[::ffff:169.254.169.254]/', 'IPv4-mapped metadata', 'address is ipv4Mapped linkLocal'],
  ['https://[::127.0.0.1]/', 'IPv4-compatible loopback (::/96)', 'address is ipv4Compatible loopback'],
  ['https://[::8.8.8.8]/', 'IPv4-compatible public (::/96 is never routable)', 'address is ipv4Compatible'],
  ['https://[::ffff:0:7f00:1]/', 'IPv4-translated (RFC 6145)', 'address is ipv4Translated loopback'],
  ['https://[fe80::1%25eth0]/', 'link-local with zone id', 'invalid URL'],
  ['https://[fe80::1]/', 'IPv6 link-local', 'address is linkLocal'],
  ['https://[fd00::1]/', 'unique local', 'address is uniqueLocal'],
  ['https://[fc00::1]/', 'unique local fc00::/7', 'address is uniqueLocal'],
  ['https://[ff02::1]/', 'IPv6 multicast', 'address is multicast'],
  ['https://[2001:db8::1]/', 'IPv6 documentation', 'address is documentation'],
  ['https://[64:ff9b::a00:1]/', 'NAT64 embedding 10.0.0.1', 'address is NAT64 private'],
  ['https://[64:ff9b::127.0.0.1]/', 'NAT64 embedding loopback', 'address is NAT64 loopback'],
  ['https://[2002:a00:1::]/', '6to4 embedding 10.0.0.1', 'address is 6to4 private'],
  ['https://[2002:7f00:1::1]/', '6to4 embedding loopback', 'address is 6to4 loopback'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'Teredo', 'address is teredo'],
  ['https://169.254.169.254/latest/meta-data/', 'cloud metadata (link-local)', 'address is linkLocal'],
  ['https://100.64.0.1/', 'carrier-grade NAT', 'address is carrierGradeNat'],
  ['https://10.0.0.1/', 'private 10/8', 'address is private'],
  ['https://172.16.0.1/', 'private 172.16/12', 'address is private'],
  ['https://172.31.255.255/', 'private 172.16/12 top', 'address is private'],
  ['https://192.168.1.1/', 'private 192.168/16', 'address is private'],
  ['https://192.0.0.1/', 'IETF protocol assignments', 'address is reserved'],
  ['https://192.0.2.1/', 'TEST-NET-1', 'address is documentation'],
  ['https://198.51.100.7/', 'TEST-NET-2', 'address is documentation'],
  ['https://203.0.113.9/', 'TEST-NET-3', 'address is documentation'],
  ['https://198.18.0.1/', 'benchmarking', 'address is benchmarking'],
  ['https://224.0.0.1/', 'multicast', 'address is multicast'],
  ['https://240.0.0.1/', 'reserved 240/4', 'address is reserved'],
  ['https://255.255.255.255/', 'broadcast', 'address is broadcast'],
  ['https://%31%32%37.0.0.1/', 'percent-encoded loopback', 'address is loopback'],
  ['https://%6c%6f%63%61%6c%68%6f%73%74/', 'percent-encoded localhost', 'special-use name .localhost'],
  ['https://ｌｏｃａｌｈｏｓｔ/', 'full-width localhost', 'special-use name .localhost'],
  ['https://localhost/', 'localhost', 'special-use name .localhost'],
  ['https://LOCALHOST./', 'localhost, uppercase, trailing dot', 'special-use name .localhost'],
  ['https://localhost../', 'localhost, two trailing dots', 'special-use name .localhost'],
  ['https://foo.localhost/', '*.localhost', 'special-use name .localhost'],
  ['https://printer.local/', 'mDNS .local', 'special-use name .local'],
  ['https://metadata.google.internal/', '.internal', 'special-use name .internal'],
  ['https://router.home.arpa/', 'home.arpa', 'special-use name .home.arpa'],
  ['https://1.0.0.127.in-addr.arpa/', 'reverse zone name', 'special-use name .arpa'],
  ['https://intranet/', 'single-label name', 'single-label host name'],
  ['http://example.com/hook', 'plain http', 'only https URLs are allowed'],
  ['http://93.184.216.34/hook', 'plain http to public IP', 'only https URLs are allowed'],
  ['https://user:pass@example.com/', 'credentials', 'credentials in URL are not allowed'],
  ['https://user@example.com/', 'user name only', 'credentials in URL are not allowed'],
  ['https://@example.com/', 'empty userinfo', 'credentials in URL are not allowed'],
  ['https://example.com@127.0.0.1/', 'userinfo confusion', 'credentials in URL are not allowed'],
  ['https://example.com:443@127.0.0.1/', 'userinfo confusion with port', 'credentials in URL are not allowed'],
  ['ftp://example.com/', 'ftp', 'scheme ftp: is not allowed'],
  ['javascript:alert(1)', 'javascript:', 'scheme javascript: is not allowed'],
  ['data:text/plain,hi', 'data:', 'scheme data: is not allowed'],
  ['file:///etc/passwd', 'file:', 'scheme file: is not allowed'],
  ['ws://example.com/', 'websocket', 'scheme ws: is not allowed'],
  ['https:///', 'empty host', 'invalid URL'],
  ['https://', 'nothing', 'invalid URL'],
  ['', 'empty string', 'empty URL'],
  ['example.com/hook', 'no scheme', 'invalid URL'],
  ['https://1.2.3.4.5/', 'five-part IPv4', 'invalid URL'],
  ['https://exa mple.com/', 'space in host', 'invalid URL'],
  ['https://127.0.0.1:4010/', 'own API listener', 'URL points at this service'],
  ['https://example.com:0/', 'port 0', 'port 0 is not a port a receiver can listen on'],
  ['https://example.com:00/hook', 'port 0, two digits', 'port 0 is not a port a receiver can listen on'],
];

describe('checkWebhookUrlSyntax: SSRF bypass corpus', () => {
  it('has a substantial corpus', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(40);
  });

  it.each(REFUSED)('refuses %s (%s)', (raw, _why, reason) => {
    expect(checkWebhookUrlSyntax(raw, policy)).toEqual({ ok: false, reason });
  });
});

describe('checkWebhookUrlSyntax: public URLs', () => {
  it.each([
    ['https://93.184.216.34/hook', '93.184.216.34'],
    ['https://example.com/hook', 'example.com'],
    ['https://[2606:4700:4700::1111]/', '[2606:4700:4700::1111]'],
    ['https://hooks.example.org:8443/a/b?c=d#e', 'hooks.example.org'],
    ['https://[::ffff:8.8.8.8]/', '[::ffff:808:808]'],
    ['HTTPS://EXAMPLE.COM/Hook', 'example.com'],
  ])('accepts %s', (raw, hostname) => {
    const verdict = checkWebhookUrlSyntax(raw, policy);
    expect(verdict).toMatchObject({ ok: true, allowListed: false });
    if (verdict.ok) expect(verdict.url.hostname).toBe(hostname);
  });
});

describe('WHATWG URL canonicalises IPv4 notations (so the IP check sees 127.0.0.1)', () => {
  it.each(['https://2130706433/', 'https://0x7f000001/', 'https://0177.0.0.1/', 'https://127.1/', 'https://%31%32%37.0.0.1/'])(
    '%s → 127.0.0.1',
    (raw) => {
      expect(new URL(raw).hostname).toBe('127.0.0.1');
      const verdict = checkWebhookUrlSyntax(raw, policy);
      expect(verdict).toEqual({ ok: false, reason: 'address is loopback' });
    },
  );
});

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:10.0.0.1', 'ipv4Mapped private'],
    ['::ffff:7f00:1', 'ipv4Mapped loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['2002:a00:1::', '6to4 private'],
    ['::7f00:1', 'ipv4Compatible loopback'],
    ['2001::1', 'teredo'],
    ['127.1', 'not an IP address'],
    ['example.com', 'not an IP address'],
  ])('%s → %s', (ip, reason) => {
    expect(forbiddenAddressReason(ip)).toBe(reason);
  });

  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])(
    '%s is public',
    (ip) => {
      expect(forbiddenAddressReason(ip)).toBeNull();
    },
  );

  it('refuses translation forms even with a public embedded address', () => {
    expect(forbiddenAddressReason('64:ff9b::808:808')).toBe('NAT64');
    expect(forbiddenAddressReason('2002:808:808::1')).toBe('6to4');
    expect(forbiddenAddressReason('::808:808')).toBe('ipv4Compatible');
  });
});

describe('allow-listed hosts (--allow-webhook-host)', () => {
  const dev: UrlPolicy = { allowHosts: ['127.0.0.1:9000', 'localhost:3000', '[::1]:7000'], ownListeners: [{ host: '127.0.0.1', port: 4010 }] };

  it('accepts the exact host:port over http or https', () => {
    expect(checkWebhookUrlSyntax('http://127.0.0.1:9000/hook', dev)).toMatchObject({ ok: true, allowListed: true });
    expect(checkWebhookUrlSyntax('https://127.0.0.1:9000/hook', dev)).toMatchObject({ ok: true, allowListed: true });
    expect(checkWebhookUrlSyntax('http://LOCALHOST:3000/', dev)).toMatchObject({ ok: true, allowListed: true });
    expect(checkWebhookUrlSyntax('http://[::1]:7000/', dev)).toMatchObject({ ok: true, allowListed: true });
    expect(checkWebhookUrlSyntax('http://2130706433:9000/', dev)).toMatchObject({ ok: true, allowListed: true });
  });

  it('keeps every other private URL refused', () => {
    expect(checkWebhookUrlSyntax('http://127.0.0.1:9001/hook', dev).ok).toBe(false);
    expect(checkWebhookUrlSyntax('https://127.0.0.1/hook', dev).ok).toBe(false);
    expect(checkWebhookUrlSyntax('http://localhost:3001/', dev).ok).toBe(false);
    expect(checkWebhookUrlSyntax('http://127.0.0.2:9000/', dev).ok).toBe(false);
    expect(checkWebhookUrlSyntax('http://127.0.0.1:4010/', dev).ok).toBe(false);
  });

  it('still refuses credentials and other schemes', () => {
    expect(checkWebhookUrlSyntax('http://u:p@127.0.0.1:9000/', dev).ok).toBe(false);
    expect(checkWebhookUrlSyntax('ftp://127.0.0.1:9000/', dev).ok).toBe(false);
  });

  it('lets the own listener through only when explicitly allow-listed', () => {
    const own: UrlPolicy = { allowHosts: ['127.0.0.1:4010'], ownListeners: [{ host: '127.0.0.1', port: 4010 }] };
    expect(checkWebhookUrlSyntax('http://127.0.0.1:4010/x', own)).toMatchObject({ ok: true, allowListed: true });
  });
});

function stubResolver(table: Record<string, string[] | Error>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string): Promise<string[]> => {
    calls.push(host);
    const answer = table[host];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return Object.assign(fn, { calls });
}

describe('checkWebhookUrlForRegistration', () => {
  const resolver = stubResolver({
    'public.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'private.example.com': ['10.0.0.7'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'mapped.example.com': ['::ffff:192.168.0.1'],
    'offline.example.com': Object.assign(new Error('queryA EAI_AGAIN offline.example.com'), { code: 'EAI_AGAIN' }),
    'broken.example.com': Object.assign(new Error('weird'), { code: 'EBADNAME' }),
  });

  it('accepts a name resolving only to public addresses', async () => {
    const v = await checkWebhookUrlForRegistration('https://public.example.com/hook', policy, resolver);
    expect(v).toMatchObject({ ok: true, allowListed: false });
  });

  it('refuses a name resolving to a private address', async () => {
    const v = await checkWebhookUrlForRegistration('https://private.example.com/hook', policy, resolver);
    expect(v).toEqual({ ok: false, reason: 'host resolves to a forbidden address (private)' });
  });

  it('refuses a name resolving to a mix of public and private addresses', async () => {
    const v = await checkWebhookUrlForRegistration('https://mixed.example.com/hook', policy, resolver);
    expect(v.ok).toBe(false);
  });

  it('refuses a name resolving to an IPv4-mapped private address', async () => {
    const v = await checkWebhookUrlForRegistration('https://mapped.example.com/hook', policy, resolver);
    expect(v).toEqual({ ok: false, reason: 'host resolves to a forbidden address (ipv4Mapped private)' });
  });

  it('accepts a name that cannot be resolved now (ENOTFOUND / EAI_AGAIN: offline)', async () => {
    expect((await checkWebhookUrlForRegistration('https://nowhere.example.com/hook', policy, resolver)).ok).toBe(true);
    expect((await checkWebhookUrlForRegistration('https://offline.example.com/hook', policy, resolver)).ok).toBe(true);
  });

  it('refuses on an unexpected resolver error', async () => {
    expect((await checkWebhookUrlForRegistration('https://broken.example.com/hook', policy, resolver)).ok).toBe(false);
  });

  it('does not resolve IP literals, refused syntax, or allow-listed hosts', async () => {
    const r = stubResolver({});
    await checkWebhookUrlForRegistration('https://93.184.216.34/hook', policy, r);
    await checkWebhookUrlForRegistration('https://localhost/hook', policy, r);
    await checkWebhookUrlForRegistration('http://receiver.test:8080/', { allowHosts: ['receiver.test:8080'], ownListeners: [] }, r);
    expect(r.calls).toEqual([]);
  });

  it('still applies syntax rules first', async () => {
    expect((await checkWebhookUrlForRegistration('http://public.example.com/hook', policy, resolver)).ok).toBe(false);
  });
});

describe('properties over all IPv4 addresses', () => {
  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

  it('an IPv4-mapped address is refused exactly when the plain address is', () => {
    fc.assert(
      fc.property(ipv4, (ip) => {
        expect(forbiddenAddressReason(`::ffff:${ip}`) === null).toBe(forbiddenAddressReason(ip) === null);
      }),
    );
  });

  it('decimal, hex and dotted URL notations get the same verdict', () => {
    fc.assert(
      fc.property(ipv4, (ip) => {
        const n = ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
        const dotted = checkWebhookUrlSyntax(`https://${ip}/`, policy).ok;
        expect(checkWebhookUrlSyntax(`https://${n}/`, policy).ok).toBe(dotted);
        expect(checkWebhookUrlSyntax(`https://0x${n.toString(16)}/`, policy).ok).toBe(dotted);
        expect(checkWebhookUrlSyntax(`https://[::ffff:${ip}]/`, policy).ok).toBe(dotted);
      }),
    );
  });

  it('every 10/8, 172.16/12, 192.168/16 and 127/8 address is refused', () => {
    const privateIp = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
    );
    fc.assert(
      fc.property(privateIp, (o) => {
        expect(forbiddenAddressReason(o.join('.'))).not.toBeNull();
        expect(checkWebhookUrlSyntax(`https://${o.join('.')}/`, policy).ok).toBe(false);
      }),
    );
  });
});
