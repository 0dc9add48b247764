// The vconsole command line (decisions §11): serve, bootstrap and admin commands. Thin: it parses arguments,
// calls core/ and prints. Exit codes: 0 ok, 1 the operation failed, 2 bad usage.
import { createKey, listKeys, revokeKey } from '../core/keys/keys-service';
import { bootstrap, createUser, firstOrganizationId, listUsers } from '../core/orgs/organizations';
import type { Principal } from '../core/principal';
import { platformDataDir } from '../paths';
import { createCore, VERSION, type Core } from '../service';
import { extraCommands } from './extra-commands';
import { dataDir, need, parse, print, runCommand, UsageError, type Values } from './kit';
import { serve } from './serve-command';
import { userInfo } from 'node:os';
import { runWithAudit } from '../core/audit/audit-context';
import { DATABASE_URL_ENV, isPostgresUrl } from '../store/pg/url';
import { existsSync } from 'node:fs';
import { storeFile } from '../store/store-open';
import { CreateKeyRequestSchema, KEY_NAME_MAX } from '../../src-shared/schemas/keys';

export { UsageError } from './kit';
export { teamOptions } from './serve-command';

/** The built-in commands' forms; the extra commands bring their own (extra-commands.ts). */
const BUILTIN_USAGE: { name: string; usage: string }[] = [
  {
    name: 'serve',
    usage:
      'vconsole serve [--port 4010] [--host 127.0.0.1] [--rate-limit N] [--data-dir DIR] [--allow-webhook-host HOST:PORT]... [--retry-unit-ms N] [--lease-ms N] [--backup-every HOURS] [--backup-keep N] [--no-console] [--replace-secret-key]\n' +
      '      [--public-url https://HOST[:PORT]] [--tls-cert FILE --tls-key FILE] [--trust-proxy ADDR[,ADDR]...] [--database postgres://...]\n' +
      '      (--port, --host and --rate-limit override the values saved in Settings for this run; --public-url makes a team\n' +
      '      server with console sign-in and is required to listen beyond loopback; --database (or VCONSOLE_DATABASE_URL)\n' +
      '      serves from a PostgreSQL database that several instances share: docs/team-server.md)',
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

const DATA_DIR_LINE = () => `Data directory: --data-dir, else $VCONSOLE_DATA_DIR, else ${platformDataDir()}\n`;

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

/** The commands whose withCore may make a new store: bootstrap (serve and migrate open it their own way). */
const CREATES_STORE = new Set(['bootstrap']);
let running: string | undefined;

export async function withCore<T>(values: Values, fn: (core: Core) => Promise<T> | T): Promise<T> {
  const mayCreate = running !== undefined && CREATES_STORE.has(running);
  // A team server's commands act on its database when VCONSOLE_DATABASE_URL is set (docs/team-server.md); an explicit
  // --data-dir holding a SQLite store names that store instead. The data folder is used either way (secret.key).
  // With the URL set, a --data-dir that holds no SQLite store is the team instance's folder, given for its data key:
  // the command acts on the database. It used to make a stray SQLite store in that folder and act on it, so an
  // administrator's change (a provider) never reached the team's database.
  const explicitDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  const envUrl = process.env[DATABASE_URL_ENV] || undefined;
  // bootstrap with the team URL exported and a --data-dir without a store could mean either (a new local store there, or
  // the team database with that folder's key): both readings have bitten someone, so it asks instead of guessing.
  if (mayCreate && explicitDir !== undefined && envUrl !== undefined && !existsSync(storeFile(explicitDir))) {
    throw new UsageError(
      `${DATABASE_URL_ENV} is set and ${explicitDir} holds no store, so it is not clear what to set up. For the team database, run bootstrap without --data-dir (VCONSOLE_DATA_DIR names the folder of its data key, secret.key); for a new local store in ${explicitDir}, unset ${DATABASE_URL_ENV} first.`,
    );
  }
  const databaseUrl = explicitDir === undefined || (envUrl !== undefined && !mayCreate && !existsSync(storeFile(explicitDir))) ? envUrl : undefined;
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) throw new UsageError(`${DATABASE_URL_ENV} must be a postgres:// or postgresql:// URL`);
  const dir = dataDir(values);
  // A mistyped --data-dir or VCONSOLE_DATA_DIR is refused instead of quietly becoming a new, empty installation.
  if (!mayCreate && databaseUrl === undefined && !existsSync(storeFile(dir))) {
    throw new UsageError(
      `No store in ${dir} (${existsSync(dir) ? 'the folder has none' : 'no such folder'}). Check --data-dir or $VCONSOLE_DATA_DIR; a new installation starts with \`vconsole bootstrap\` or \`vconsole serve\`.`,
    );
  }
  // `webhooks replay --allow-webhook-host HOST:PORT` relaxes the URL rules for this command as `serve` does.
  const allow = values['allow-webhook-host'];
  const allowWebhookHosts = Array.isArray(allow) ? allow.filter((a): a is string => typeof a === 'string') : [];
  const core = await createCore({
    dataDir: dir,
    startWorker: false,
    logLevel: 'silent',
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(allowWebhookHosts.length > 0 ? { allowWebhookHosts } : {}),
  });
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

export async function ownerPrincipal(core: Core, environment: 'sandbox' | 'live' = 'sandbox'): Promise<Principal> {
  const organizationId = await firstOrganizationId(core.deps);
  if (!organizationId) throw new UsageError('No organization yet: run `vconsole bootstrap --email E --password P` first.');
  return { kind: 'console', organizationId, environment, role: 'OWNER', door: 'cli' };
}

async function bootstrapCmd(args: string[]): Promise<number> {
  const { values } = parse(args, { email: { type: 'string' }, password: { type: 'string' }, org: { type: 'string' } });
  const email = need(values, 'email');
  const password = need(values, 'password');
  // One organization per installation: refused in the core when one exists (exit 1, its message), as in the console.
  const result = await withCore(values, (core) =>
    bootstrap(core.deps, { email, password, ...(typeof values['org'] === 'string' ? { organizationName: values['org'] } : {}) }, { firstOnly: true }),
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
    const user = await withCore(values, async (core) => createUser(core.deps, (await ownerPrincipal(core)).organizationId, { email: need(values, 'email'), password: need(values, 'password'), role }));
    print(values, user, `User ${user.email} (${user.role}) created: ${user.id}`);
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const list = await withCore(values, async (core) => listUsers(core.deps, (await ownerPrincipal(core)).organizationId));
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
    // The API's rule for a key's name (1 to 100 characters once trimmed), from the one schema.
    const named = CreateKeyRequestSchema.shape.name.safeParse(need(values, 'name'));
    if (!named.success) throw new UsageError(`--name must be 1 to ${KEY_NAME_MAX} characters (not only spaces)`);
    const k = await withCore(values, async (core) => createKey(core.deps, await ownerPrincipal(core), { name: named.data, environment }));
    print(values, k, `Key ${k.id} (${k.environment}) created:\n${k.key}\nThis key is shown once. Store it now.`);
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const list = await withCore(values, async (core) => (await listKeys(core.deps, (await ownerPrincipal(core)).organizationId, { limit: 100, offset: 0 })).data);
    print(values, list, list.map((k) => `${k.id}  ${k.environment.padEnd(7)}  ${k.status.padEnd(7)}  ${k.keyPrefix}…  ${k.name}  last used: ${k.lastUsedAt ?? 'never'}`).join('\n') || 'No keys.');
    return 0;
  }
  if (sub === 'revoke') {
    const { values, positionals } = parse(rest, {});
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke: give the key id (see `vconsole keys list`)');
    const r = await withCore(values, async (core) => revokeKey(core.deps, (await ownerPrincipal(core)).organizationId, id));
    print(values, r, `Key ${r.id} revoked at ${r.revokedAt}.`);
    return 0;
  }
  throw new UsageError('keys: expected `create`, `list` or `revoke`');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  running = cmd;
  const help = helpFor(argv);
  if (help !== null) {
    process.stdout.write(help);
    return 0;
  }
  return runCommand(async () => {
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
  });
}
