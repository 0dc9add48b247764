// A team server's public URL (`serve --public-url`, docs/team-server.md): the address people and API clients use to
// reach the service. It decides the one Host header answered, the console's origin, and whether cookies are Secure.
// Listening beyond loopback requires one: without it the Host check could name no host, and sign-in cookies would
// go out without knowing whether the page was reached over TLS.

export class PublicUrlError extends Error {
  override name = 'PublicUrlError';
}

/** Parses and checks a public URL: http(s), a host, no path, query, fragment or credentials. */
export function parsePublicUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PublicUrlError(`--public-url must be a URL like https://console.example.com or https://host:8443, got ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PublicUrlError(`--public-url must start with https:// (or http://), got ${raw}`);
  if (url.username || url.password) throw new PublicUrlError('--public-url must not carry a user name or password');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new PublicUrlError(`--public-url is the origin only (scheme, host and port), without a path: ${url.origin}`);
  }
  return url;
}

/** Whether a listener host is loopback only. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

/** Why a listener cannot start as configured, or null: a non-loopback listener needs a public URL; TLS needs an https one. */
export function listenerProblem(o: { host: string; publicUrl: URL | null; tls: boolean }): string | null {
  if (!isLoopbackHost(o.host) && !o.publicUrl) {
    return (
      `Listening on ${o.host} (beyond loopback) requires the public URL people will use: ` +
      'start with --public-url https://HOST[:PORT] (or VCONSOLE_PUBLIC_URL), which turns on console sign-in. See docs/team-server.md.'
    );
  }
  if (o.tls && o.publicUrl?.protocol !== 'https:') return '--tls-cert and --tls-key serve HTTPS: give --public-url https://HOST[:PORT] as well.';
  return null;
}
