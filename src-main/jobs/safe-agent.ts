// undici Agent for webhook deliveries that enforces the URL policy at connect time (after DNS resolution),
// so a name that was public at registration cannot be rebound to an internal address later.
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import {
  forbiddenAddressReason,
  forbiddenHostNameReason,
  isAllowListed,
  isOwnListener,
  systemResolver,
} from '../core/webhooks/url-policy';
import type { Resolver, UrlPolicy } from '../core/webhooks/url-policy';

export interface SafeAgentOptions {
  policy: UrlPolicy;
  resolve?: Resolver;
  connectTimeoutMs?: number;
}

export class WebhookUrlBlockedError extends Error {
  readonly code = 'ERR_WEBHOOK_URL_BLOCKED';
  constructor(readonly reason: string) {
    super(`blocked by webhook URL policy: ${reason}`);
    this.name = 'WebhookUrlBlockedError';
  }
}

/**
 * The policy-enforcing connector on its own; `base` is the real connector (replaceable so tests can observe
 * which address and servername would be dialled without any network traffic).
 */
export function createSafeConnector(
  opts: SafeAgentOptions,
  base: buildConnector.connector = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000 }),
): buildConnector.connector {
  const resolve = opts.resolve ?? systemResolver;
  return (options, callback) => {
    const fail = (err: Error): void => callback(err, null);
    // undici strips the brackets of IPv6 literals before calling the connector.
    const hostname = options.hostname;
    const port = options.port !== '' && options.port !== undefined ? Number(options.port) : options.protocol === 'http:' ? 80 : 443;

    if (isAllowListed(hostname, port, opts.policy)) {
      base(options, callback);
      return;
    }
    if (options.protocol !== 'https:') return fail(new WebhookUrlBlockedError('only https URLs are allowed'));
    if (options.socketPath) return fail(new WebhookUrlBlockedError('unix sockets are not allowed'));
    if (isOwnListener(hostname, port, opts.policy)) return fail(new WebhookUrlBlockedError('URL points at this service'));

    if (isIP(hostname) !== 0) {
      const reason = forbiddenAddressReason(hostname);
      if (reason !== null) return fail(new WebhookUrlBlockedError(`address is ${reason}`));
      base(options, callback);
      return;
    }
    const nameReason = forbiddenHostNameReason(hostname);
    if (nameReason !== null) return fail(new WebhookUrlBlockedError(nameReason));

    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
          return fail(err);
        }
        // Every address must pass, not just the one we dial: a mixed answer is a rebinding signal.
        for (const address of addresses) {
          const reason = forbiddenAddressReason(address);
          if (reason !== null) return fail(new WebhookUrlBlockedError(`${hostname} resolves to a forbidden address (${reason})`));
          if (isOwnListener(address, port, opts.policy)) return fail(new WebhookUrlBlockedError('URL points at this service'));
        }
        // Dial the checked address itself (no second lookup can happen), while TLS SNI and certificate
        // verification keep using the host name.
        const target = addresses[0]!.replace(/%.*$/, '');
        base({ ...options, hostname: target, servername: options.servername || hostname }, callback);
      },
      (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))),
    );
  };
}

/**
 * Agent for webhook deliveries. Redirects are never followed: the dispatcher calls undici `request`, which
 * (in undici 7) follows no redirects unless a redirect interceptor is composed in, and none is; a 3xx is
 * recorded as a failed attempt (interface §6). Each new connection re-runs the policy check.
 */
export function createSafeAgent(opts: SafeAgentOptions): Agent {
  return new Agent({ connect: createSafeConnector(opts) });
}
