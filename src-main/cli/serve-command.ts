// `vconsole serve`: the service in the foreground until SIGINT/SIGTERM, then a graceful stop. On its own so that the
// headless entry (headless.ts) starts it without loading the other commands (docs/performance.md, "Cold start").
import { firstOrganizationId } from '../core/orgs/organizations';
import { runningListener } from '../core/settings/settings-store';
import { ListenError, startService, VERSION } from '../service';
import { DataFolderLockedError } from '../store/data-folder-lock';
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { parsePublicUrl } from '../http/public-url';
import { DATABASE_URL_ENV, isPostgresUrl, redactUrl } from '../store/pg/url';
import { dataDir, parse, UsageError, type Values } from './kit';

export async function serve(args: string[]): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-webhook-host': { type: 'string', multiple: true },
    'retry-unit-ms': { type: 'string' },
    'lease-ms': { type: 'string' },
    'no-console': { type: 'boolean' },
    'rate-limit': { type: 'string' },
    'backup-every': { type: 'string' },
    'backup-keep': { type: 'string' },
    database: { type: 'string' },
    'public-url': { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'trust-proxy': { type: 'string' },
    'replace-secret-key': { type: 'boolean' },
  });
  // A team server's store (docs/team-server.md): --database, else VCONSOLE_DATABASE_URL; without either, the data
  // folder's SQLite file. The data folder is used either way (this instance's lock, uploads, batch files, secret.key).
  const database = typeof values['database'] === 'string' ? values['database'] : process.env[DATABASE_URL_ENV] || undefined;
  if (database !== undefined && !isPostgresUrl(database)) throw new UsageError(`--database expects a postgres:// or postgresql:// URL (${DATABASE_URL_ENV} likewise)`);
  const team = teamOptions(values);
  // An absent flag leaves the choice to the saved settings (docs/settings.md), then the default.
  const backupEvery = values['backup-every'] === undefined ? undefined : Number(values['backup-every']);
  if (backupEvery !== undefined && (!Number.isInteger(backupEvery) || backupEvery < 0 || backupEvery > 720)) throw new UsageError('--backup-every must be a whole number of hours from 0 (off) to 720');
  const backupKeep = values['backup-keep'] === undefined ? undefined : Number(values['backup-keep']);
  if (backupKeep !== undefined && (!Number.isInteger(backupKeep) || backupKeep < 1 || backupKeep > 365)) throw new UsageError('--backup-keep must be a whole number from 1 to 365');
  const backups = { ...(backupEvery !== undefined ? { everyHours: backupEvery } : {}), ...(backupKeep !== undefined ? { keep: backupKeep } : {}) };
  const port = values['port'] === undefined ? undefined : Number(values['port']);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port must be an integer from 0 to 65535');
  const rateLimitPerMinute = values['rate-limit'] === undefined ? undefined : Number(values['rate-limit']);
  if (rateLimitPerMinute !== undefined && (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 0)) throw new UsageError('--rate-limit must be a whole number of requests per minute (0 turns the limit off)');
  const retryUnitMs = values['retry-unit-ms'] === undefined ? 60_000 : Number(values['retry-unit-ms']);
  if (!Number.isInteger(retryUnitMs) || retryUnitMs < 1) throw new UsageError('--retry-unit-ms must be a positive integer');
  const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms']);
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 100)) throw new UsageError('--lease-ms must be a whole number of milliseconds, at least 100');
  const allow = (values['allow-webhook-host'] as string[] | undefined) ?? [];
  for (const a of allow) if (!/^[^\s/:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(a)) throw new UsageError(`--allow-webhook-host expects HOST:PORT, got ${a}`);
  const hostFlag = typeof values['host'] === 'string' ? values['host'] : undefined;
  let service;
  try {
    service = await startService({ dataDir: dataDir(values), host: hostFlag, port, rateLimitPerMinute, retryUnitMs, allowWebhookHosts: allow, webConsole: values['no-console'] !== true, logLevel: process.env['LOG_LEVEL'] ?? 'warn', backups, ...team, ...(database ? { databaseUrl: database } : {}), ...(leaseMs !== undefined ? { leaseMs } : {}), ...(values['replace-secret-key'] === true ? { replaceSecretKey: true } : {}) });
  } catch (e) {
    if (e instanceof ListenError || e instanceof DataFolderLockedError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const out = process.stdout;
  out.write(`Verification Console ${VERSION} is running.\n`);
  out.write(`  API:       ${service.apiBaseUrl}\n`);
  const consoleUrl = service.consoleUrl();
  if (consoleUrl && team.publicUrl) out.write(`  Console:   ${consoleUrl}\n             (team sign-in: console users sign in with their email and password)\n`);
  else if (consoleUrl) out.write(`  Console:   ${consoleUrl}\n             (a one-time link: open it once; restart to get a new one)\n`);
  out.write(`  Data:      ${dataDir(values)}\n`);
  if (database) out.write(`  Store:     PostgreSQL ${redactUrl(database)}\n`);
  const host = runningListener(service.deps)?.host ?? hostFlag ?? '127.0.0.1';
  const listening = runningListener(service.deps);
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') out.write(`  Listening: ${host}:${listening?.port ?? '?'} (beyond loopback; answers only Host ${new URL(team.publicUrl!).host})\n`);
  if (team.publicUrl?.startsWith('https:') && !team.tls && !team.trustProxy) {
    out.write('  NOTE: the public URL is https but this listener speaks plain HTTP: put a TLS-terminating proxy in front and\n        pass --trust-proxy with its address (docs/team-server.md), or serve TLS with --tls-cert/--tls-key.\n');
  }
  if (allow.length > 0) out.write(`  WARNING: webhook URL rules relaxed for ${allow.join(', ')} (--allow-webhook-host).\n`);
  if (retryUnitMs !== 60_000) out.write(`  WARNING: one minute of the retry schedule lasts ${retryUnitMs} ms (--retry-unit-ms).\n`);
  if (values['replace-secret-key'] === true) out.write('  WARNING: secret.key replaced (--replace-secret-key): rotate the webhook secrets and enter the provider credentials sealed with the old key again; copy this secret.key to every other instance.\n');
  if (leaseMs !== undefined) out.write(`  WARNING: jobs and webhook attempts are leased for ${leaseMs} ms (--lease-ms; default 60000): one that runs longer may run twice.\n`);
  if (!(await firstOrganizationId(service.deps))) out.write(`  No organization yet: open the console to set it up, or run \`vconsole bootstrap\`.\n`);
  const signals = stopSignals(process, { now: () => Date.now(), exit: (code) => process.exit(code), write: (s) => out.write(s) });
  try {
    await signals.asked;
    out.write('Stopping: draining the queue…\n');
    await service.stop();
  } finally {
    signals.dispose();
  }
  return 0;
}

/**
 * The team-server options of `serve`, from flags or their environment variables (a flag wins): the public URL, the
 * TLS certificate and key files (read here), the trusted proxy addresses.
 */
export function teamOptions(values: Values, env: NodeJS.ProcessEnv = process.env): { publicUrl?: string; tls?: { cert: Buffer; key: Buffer }; trustProxy?: string[] } {
  const pick = (flag: string, name: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : env[name] || undefined);
  const publicUrl = pick('public-url', 'VCONSOLE_PUBLIC_URL');
  if (publicUrl !== undefined) {
    try {
      parsePublicUrl(publicUrl);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const certFile = pick('tls-cert', 'VCONSOLE_TLS_CERT');
  const keyFile = pick('tls-key', 'VCONSOLE_TLS_KEY');
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  let tls: { cert: Buffer; key: Buffer } | undefined;
  if (certFile !== undefined && keyFile !== undefined) {
    const read = (file: string, flag: string) => {
      try {
        return readFileSync(file);
      } catch (e) {
        throw new UsageError(`${flag}: cannot read ${file}: ${(e as Error).message}`);
      }
    };
    tls = { cert: read(certFile, '--tls-cert'), key: read(keyFile, '--tls-key') };
    // Judged here, naming the file: a file that reads but is no PEM certificate or key used to fail deep in the
    // listener's set-up with OpenSSL's words ("PEM routines::no start line").
    try {
      new X509Certificate(tls.cert);
    } catch {
      throw new UsageError(`--tls-cert: ${certFile} is not a PEM certificate`);
    }
    try {
      createPrivateKey(tls.key);
    } catch {
      throw new UsageError(`--tls-key: ${keyFile} is not a PEM private key (or it is encrypted: give it unencrypted)`);
    }
  }
  const proxies = pick('trust-proxy', 'VCONSOLE_TRUST_PROXY');
  const trustProxy = proxies === undefined ? undefined : proxies.split(',').map((a) => a.trim()).filter((a) => a !== '');
  // ipaddr.js, as the proxy check itself reads them: a pattern of hex digits let `abc` and `dead::1/999` through.
  // Addresses in full (1.2.3.4, not the legacy 1.2.3), or ranges of them.
  const proxyOk = (a: string) => {
    const [addr = '', bits] = a.split('/');
    const full = ipaddr.IPv4.isValidFourPartDecimal(addr) || ipaddr.IPv6.isValid(addr);
    return full && (bits === undefined || ipaddr.isValidCIDR(a));
  };
  if (trustProxy) for (const a of trustProxy) if (!proxyOk(a)) throw new UsageError(`--trust-proxy expects IP addresses or CIDR ranges, got ${a}`);
  return { ...(publicUrl !== undefined ? { publicUrl } : {}), ...(tls ? { tls } : {}), ...(trustProxy?.length ? { trustProxy } : {}) };
}


/** A signal that repeats the first one within this long is the same request to stop (SIGNAL_ECHO_MS), not a second. */
export const SIGNAL_ECHO_MS = 1000;

/**
 * SIGINT/SIGTERM handling of `serve`: the first asks it to stop (`asked` resolves). The handlers stay while it stops:
 * Ctrl+C in a terminal reaches every process of its group, so under `npm start` (which also passes the signal on) a
 * second SIGINT arrives at once, and with no handler left Node's default ended the process half-way through its stop
 * (jobs and deliveries cut, the store not closed). Signals within SIGNAL_ECHO_MS of the first are that echo; one
 * later is a person pressing Ctrl+C again to give up waiting: the process ends at once (130).
 */
export function stopSignals(
  proc: Pick<NodeJS.Process, 'on' | 'off'>,
  o: { now: () => number; exit: (code: number) => void; write: (s: string) => void },
): { asked: Promise<void>; dispose: () => void } {
  let first: number | null = null;
  let ask: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (ask = resolve));
  const onSignal = () => {
    const now = o.now();
    if (first === null) {
      first = now;
      ask();
    } else if (now - first >= SIGNAL_ECHO_MS) {
      o.write('Stopped before the service finished stopping (asked twice).\n');
      o.exit(130);
    }
  };
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);
  return {
    asked,
    dispose: () => {
      proc.off('SIGINT', onSignal);
      proc.off('SIGTERM', onSignal);
    },
  };
}
