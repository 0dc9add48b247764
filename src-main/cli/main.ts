// The vconsole command line (decisions §11): serve, bootstrap and admin commands. Thin: it parses arguments,
// calls core/ and prints. Exit codes: 0 ok, 1 the operation failed, 2 bad usage.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isAppError } from '../../src-shared/app-error';
import { createKey, listKeys, revokeKey } from '../core/keys/keys-service';
import { bootstrap, createUser, firstOrganizationId, listUsers } from '../core/orgs/organizations';
import type { Principal } from '../core/principal';
import { defaultDataDir } from '../paths';
import { createCore, ListenError, startService, VERSION } from '../service';
import { DataFolderLockedError } from '../store/data-folder-lock';
import { runningListener } from '../core/settings/settings-store';
import { extraCommands } from './extra-commands';
import { userInfo } from 'node:os';
import { readFileSync } from 'node:fs';
import { parsePublicUrl } from '../http/public-url';
import { runWithAudit } from '../core/audit/audit-context';
import { DATABASE_URL_ENV } from '../store/pg/url';

export class UsageError extends Error {}

/** The built-in commands' forms; the extra commands bring their own (extra-commands.ts). */
const BUILTIN_USAGE: { name: string; usage: string }[] = [
  {
    name: 'serve',
    usage:
      'vconsole serve [--port 4010] [--host 127.0.0.1] [--rate-limit N] [--data-dir DIR] [--allow-webhook-host HOST:PORT]... [--retry-unit-ms N] [--backup-every HOURS] [--backup-keep N] [--no-console]\n' +
      '      [--public-url https://HOST[:PORT]] [--tls-cert FILE --tls-key FILE] [--trust-proxy ADDR[,ADDR]...]\n' +
      '      (--port, --host and --rate-limit override the values saved in Settings for this run; --public-url makes a team\n' +
      '      server with console sign-in and is required to listen beyond loopback: docs/team-server.md)',
  },
  { name: 'bootstrap', usage: 'vconsole bootstrap --email E --password P [--org NAME] [--data-dir DIR] [--json]' },
  { name: 'users', usage: 'vconsole users create --email E --password P --role OWNER|ADMIN|DEVELOPER [--data-dir DIR] [--json] | users list [--data-dir DIR] [--json]' },
  {
    name: 'keys',
    usage:
      'vconsole keys create --name NAME --environment sandbox|live [--data-dir DIR] [--json] | keys list [--data-dir DIR] [--json] | keys revoke KEY_ID [--data-dir DIR] [--json]',
  },
];

/**
 * A command's usage as separate forms, one per subcommand: "vconsole wallet show | wallet topup AMOUNT" becomes
 * two forms, and a form's continuation lines (indented, not starting with "vconsole") stay with it.
 */
export function usageForms(name: string, usage: string): string[] {
  return usage
    .split(new RegExp(`\\s*\\n\\s*(?=vconsole )| \\| (?=${name}\\b)`))
    .map((f) => f.trim())
    .filter((f) => f !== '')
    .map((f) => (f.startsWith('vconsole ') ? f : `vconsole ${f}`));
}

function allCommands(): { name: string; usage: string }[] {
  return [...BUILTIN_USAGE, ...extraCommands.map((c) => ({ name: c.name, usage: c.usage }))];
}

const DATA_DIR_LINE = () => `Data directory: --data-dir, else $VCONSOLE_DATA_DIR, else ${defaultDataDir()}\n`;

function usageText(): string {
  const forms = allCommands().flatMap((c) => usageForms(c.name, c.usage));
  return `vconsole ${VERSION} — Verification Console service and admin commands\n\nUsage:\n${forms.map((f) => `  ${f}`).join('\n')}\n${DATA_DIR_LINE()}`;
}

/**
 * \`--help\` (or \`-h\`) anywhere before a \`--\` answers for the command it follows, whatever else is on the line:
 * \`vconsole webhooks listen --help\` prints the forms of \`webhooks listen\`, \`vconsole keys --help\` every \`keys\` form,
 * no command the whole usage. Null when the arguments ask for no help, or name no known command.
 */
export function helpFor(argv: string[]): string | null {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  if (!args.some((a) => a === '--help' || a === '-h')) return null;
  const [cmd, sub] = args;
  if (cmd === undefined || cmd === 'help' || cmd.startsWith('-')) return usageText();
  const command = allCommands().find((c) => c.name === cmd);
  // An unknown command stays a usage error (exit 2), help or not.
  if (!command) return null;
  const forms = usageForms(command.name, command.usage);
  const ofSub = sub && !sub.startsWith('-') ? forms.filter((f) => f.startsWith(`vconsole ${command.name} ${sub}`)) : [];
  const shown = ofSub.length > 0 ? ofSub : forms;
  return `Usage:\n${shown.map((f) => `  ${f}`).join('\n')}\n${DATA_DIR_LINE()}`;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: ParseArgsConfig['options']): { values: Values; positionals: string[] } {
  try {
    const r = parseArgs({ args, options: { ...options, 'data-dir': { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    return { values: r.values as Values, positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function dataDir(values: Values): string {
  return typeof values['data-dir'] === 'string' ? values['data-dir'] : defaultDataDir();
}

function print(values: Values, json: unknown, text: string): void {
  process.stdout.write(values['json'] ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
}

/** Issue 17: on PostgreSQL only `migrate`, `db check` and `db copy` exist yet; nothing falls back to SQLite silently. */
const PG_NOT_YET = 'with a PostgreSQL database this version can run `vconsole migrate`, `vconsole db check` and `vconsole db copy` (docs/team-server.md)';

export async function withCore<T>(values: Values, fn: (core: ReturnType<typeof createCore>) => Promise<T> | T): Promise<T> {
  if (typeof values['data-dir'] !== 'string' && process.env[DATABASE_URL_ENV]) {
    throw new UsageError(`${DATABASE_URL_ENV} is set, but this command works only on a SQLite data folder in this version; pass --data-dir DIR to use one, or unset it (${PG_NOT_YET}).`);
  }
  const core = createCore({ dataDir: dataDir(values), startWorker: false, logLevel: 'silent' });
  // Changes made by a command are audited as the command line's, with the operating-system user (docs/audit.md).
  const actor = { type: 'cli' as const, id: null, label: `${cliUser()} (command line)` };
  try {
    return await runWithAudit({ door: 'cli', actor }, async () => fn(core));
  } finally {
    await core.close();
  }
}

function cliUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown user';
  }
}

export function ownerPrincipal(core: ReturnType<typeof createCore>, environment: 'sandbox' | 'live' = 'sandbox'): Principal {
  const organizationId = firstOrganizationId(core.deps);
  if (!organizationId) throw new UsageError('No organization yet: run `vconsole bootstrap --email E --password P` first.');
  return { kind: 'console', organizationId, environment, role: 'OWNER', door: 'cli' };
}

async function serve(args: string[]): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-webhook-host': { type: 'string', multiple: true },
    'retry-unit-ms': { type: 'string' },
    'no-console': { type: 'boolean' },
    'rate-limit': { type: 'string' },
    'backup-every': { type: 'string' },
    'backup-keep': { type: 'string' },
    database: { type: 'string' },
    'public-url': { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'trust-proxy': { type: 'string' },
  });
  const database = typeof values['database'] === 'string' ? values['database'] : typeof values['data-dir'] === 'string' ? undefined : process.env[DATABASE_URL_ENV];
  if (database) {
    process.stderr.write(`vconsole: serving from PostgreSQL is not available in this version yet; ${PG_NOT_YET}. Without --database (and ${DATABASE_URL_ENV} unset) serve uses the SQLite data folder.\n`);
    return 1;
  }
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
  const allow = (values['allow-webhook-host'] as string[] | undefined) ?? [];
  for (const a of allow) if (!/^[^\s/:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(a)) throw new UsageError(`--allow-webhook-host expects HOST:PORT, got ${a}`);
  const hostFlag = typeof values['host'] === 'string' ? values['host'] : undefined;
  let service;
  try {
    service = await startService({ dataDir: dataDir(values), host: hostFlag, port, rateLimitPerMinute, retryUnitMs, allowWebhookHosts: allow, webConsole: values['no-console'] !== true, logLevel: process.env['LOG_LEVEL'] ?? 'warn', backups, ...team });
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
  const host = runningListener(service.deps)?.host ?? hostFlag ?? '127.0.0.1';
  const listening = runningListener(service.deps);
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') out.write(`  Listening: ${host}:${listening?.port ?? '?'} (beyond loopback; answers only Host ${new URL(team.publicUrl!).host})\n`);
  if (team.publicUrl?.startsWith('https:') && !team.tls && !team.trustProxy) {
    out.write('  NOTE: the public URL is https but this listener speaks plain HTTP: put a TLS-terminating proxy in front and\n        pass --trust-proxy with its address (docs/team-server.md), or serve TLS with --tls-cert/--tls-key.\n');
  }
  if (allow.length > 0) out.write(`  WARNING: webhook URL rules relaxed for ${allow.join(', ')} (--allow-webhook-host).\n`);
  if (retryUnitMs !== 60_000) out.write(`  WARNING: one minute of the retry schedule lasts ${retryUnitMs} ms (--retry-unit-ms).\n`);
  if (!firstOrganizationId(service.deps)) out.write(`  No organization yet: open the console to set it up, or run \`vconsole bootstrap\`.\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.write('Stopping: draining the queue…\n');
  await service.stop();
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
  }
  const proxies = pick('trust-proxy', 'VCONSOLE_TRUST_PROXY');
  const trustProxy = proxies === undefined ? undefined : proxies.split(',').map((a) => a.trim()).filter((a) => a !== '');
  if (trustProxy) for (const a of trustProxy) if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(a)) throw new UsageError(`--trust-proxy expects IP addresses or CIDR ranges, got ${a}`);
  return { ...(publicUrl !== undefined ? { publicUrl } : {}), ...(tls ? { tls } : {}), ...(trustProxy?.length ? { trustProxy } : {}) };
}

async function bootstrapCmd(args: string[]): Promise<number> {
  const { values } = parse(args, { email: { type: 'string' }, password: { type: 'string' }, org: { type: 'string' } });
  const email = need(values, 'email');
  const password = need(values, 'password');
  const result = await withCore(values, (core) =>
    bootstrap(core.deps, { email, password, ...(typeof values['org'] === 'string' ? { organizationName: values['org'] } : {}) }),
  );
  print(
    values,
    { organizationId: result.organizationId, owner: result.owner, keys: { sandbox: result.keys.sandbox.key, live: result.keys.live.key } },
    [
      `Organization ${result.organizationId} created with owner ${result.owner.email}.`,
      `Sandbox key: ${result.keys.sandbox.key}`,
      `Live key:    ${result.keys.live.key}`,
      'These keys are shown once. Store them now.',
    ].join('\n'),
  );
  return 0;
}

async function users(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parse(rest, { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } });
    const role = need(values, 'role').toUpperCase();
    if (role !== 'OWNER' && role !== 'ADMIN' && role !== 'DEVELOPER') throw new UsageError('--role must be OWNER, ADMIN or DEVELOPER');
    const user = await withCore(values, (core) => createUser(core.deps, ownerPrincipal(core).organizationId, { email: need(values, 'email'), password: need(values, 'password'), role }));
    print(values, user, `User ${user.email} (${user.role}) created: ${user.id}`);
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const list = await withCore(values, (core) => listUsers(core.deps, ownerPrincipal(core).organizationId));
    print(values, list, list.map((u) => `${u.id}  ${u.role.padEnd(9)}  ${u.email}`).join('\n') || 'No users.');
    return 0;
  }
  throw new UsageError('users: expected `create` or `list`');
}

async function keys(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parse(rest, { name: { type: 'string' }, environment: { type: 'string' } });
    const environment = need(values, 'environment');
    if (environment !== 'sandbox' && environment !== 'live') throw new UsageError('--environment must be sandbox or live');
    const k = await withCore(values, (core) => createKey(core.deps, ownerPrincipal(core), { name: need(values, 'name'), environment }));
    print(values, k, `Key ${k.id} (${k.environment}) created:\n${k.key}\nThis key is shown once. Store it now.`);
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const list = await withCore(values, (core) => listKeys(core.deps, ownerPrincipal(core).organizationId, { limit: 100, offset: 0 }).data);
    print(values, list, list.map((k) => `${k.id}  ${k.environment.padEnd(7)}  ${k.status.padEnd(7)}  ${k.keyPrefix}…  ${k.name}  last used: ${k.lastUsedAt ?? 'never'}`).join('\n') || 'No keys.');
    return 0;
  }
  if (sub === 'revoke') {
    const { values, positionals } = parse(rest, {});
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke: give the key id (see `vconsole keys list`)');
    const r = await withCore(values, (core) => revokeKey(core.deps, ownerPrincipal(core).organizationId, id));
    print(values, r, `Key ${r.id} revoked at ${r.revokedAt}.`);
    return 0;
  }
  throw new UsageError('keys: expected `create`, `list` or `revoke`');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const help = helpFor(argv);
  if (help !== null) {
    process.stdout.write(help);
    return 0;
  }
  try {
    switch (cmd) {
      case 'serve':
        return await serve(rest);
      case 'bootstrap':
        return await bootstrapCmd(rest);
      case 'users':
        return await users(rest);
      case 'keys':
        return await keys(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(usageText());
        return cmd === undefined ? 2 : 0;
      case '--version':
        process.stdout.write(`${VERSION}\n`);
        return 0;
      default: {
        const extra = extraCommands.find((c) => c.name === cmd);
        if (extra) return await extra.run(rest, { parse, need, withCore, ownerPrincipal, print, dataDir });
        throw new UsageError(`unknown command: ${cmd}`);
      }
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`vconsole: ${e.message}\nRun \`vconsole help\` for usage.\n`);
      return 2;
    }
    if (isAppError(e)) {
      const detail = e.details?.map((d) => `\n  ${d.field}: ${d.message}`).join('') ?? '';
      process.stderr.write(`vconsole: ${e.message}${detail}\n`);
      return 1;
    }
    process.stderr.write(`vconsole: ${(e as Error).message}\n`);
    return 1;
  }
}

// Run directly when bundled as the headless entry (out/main/headless.js).
if (process.argv[1] && /headless\.(c?js|mjs)$/.test(process.argv[1])) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
