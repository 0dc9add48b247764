// The vconsole command line, run as a user runs it (a child process on a temp data folder).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

function vconsole(...args: string[]) {
  return vconsoleWith({}, ...args);
}

function vconsoleWith(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/vconsole.mjs', ...args], { encoding: 'utf8', env: { ...process.env, VCONSOLE_DATA_DIR: '', VCONSOLE_DATABASE_URL: '', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs the command with its stdout closed before it writes, as `vconsole … | head -1` does to a long output. */
function vconsoleIntoClosedPipe(...args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((done) => {
    const c = spawn(process.execPath, ['bin/vconsole.mjs', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VCONSOLE_DATA_DIR: '' } });
    c.stdout.destroy();
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('close', (code) => done({ code, err }));
  });
}

describe('vconsole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vc-cli-'));
  const more: string[] = [];
  afterAll(() => {
    for (const d of [dir, ...more]) rmSync(d, { recursive: true, force: true });
  });

  it('bootstraps with --json and prints the two keys once', () => {
    const r = vconsole('bootstrap', '--data-dir', dir, '--email', 'owner@cli.test', '--password', 'cli-password-1', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { organizationId: string; owner: { email: string }; keys: { sandbox: string; live: string } };
    expect(j.organizationId).toMatch(/^org_/);
    expect(j.owner.email).toBe('owner@cli.test');
    expect(j.keys.sandbox).toMatch(/^svc_sandbox_[0-9a-f]{64}$/);
    expect(j.keys.live).toMatch(/^svc_live_[0-9a-f]{64}$/);
  });

  it('creates users and keys, lists and revokes keys', () => {
    expect(vconsole('users', 'create', '--data-dir', dir, '--email', 'dev@cli.test', '--password', 'dev-password-1', '--role', 'DEVELOPER').code).toBe(0);
    const created = JSON.parse(vconsole('keys', 'create', '--data-dir', dir, '--name', 'ci', '--environment', 'sandbox', '--json').out) as { id: string; key: string };
    expect(created.key).toMatch(/^svc_sandbox_/);
    const listed = JSON.parse(vconsole('keys', 'list', '--data-dir', dir, '--json').out) as { id: string; key?: string }[];
    expect(listed.map((k) => k.id)).toContain(created.id);
    expect(listed.every((k) => k.key === undefined)).toBe(true);
    const revoked = JSON.parse(vconsole('keys', 'revoke', created.id, '--data-dir', dir, '--json').out) as { status: string };
    expect(revoked.status).toBe('revoked');
  });

  it('tops up the wallet, sets a price and enables a service', () => {
    expect(vconsole('wallet', 'topup', '12.50', '--data-dir', dir).code).toBe(0);
    expect(vconsole('prices', 'set', 'account:NG', '0.75', '--data-dir', dir).code).toBe(0);
    expect(vconsole('services', 'enable', 'account:NG', '--data-dir', dir).code).toBe(0);
    const w = JSON.parse(vconsole('wallet', 'show', '--data-dir', dir, '--json').out) as { balance: number; currency: string };
    expect(w).toMatchObject({ balance: 1250, currency: 'USD' });
    const prices = JSON.parse(vconsole('prices', 'list', '--data-dir', dir, '--json').out) as { service: string; amount: number }[];
    expect(prices).toContainEqual(expect.objectContaining({ service: 'account:NG', amount: 75 }));
  });

  it('verifies from the command line through the same rules as the API', () => {
    const ok = vconsole('verify', 'account', '--data-dir', dir, '--json', '--body', '{"country":"NG","accountNumber":"0123456789","bankCode":"058"}');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: 'success', verified: true, accountName: 'ADAEZE OKAFOR' });
    const notFound = vconsole('verify', 'account', '--data-dir', dir, '--body', '{"country":"NG","accountNumber":"0000000000","bankCode":"058","mode":"async"}', '--wait');
    expect(notFound.code).toBe(1);
    expect(notFound.out).toContain('ACCOUNT_NOT_FOUND');
    const invalid = vconsole('verify', 'phone', '--data-dir', dir, '--body', '{"country":"KE"}');
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain('phoneNumber');
  });

  it('answers bad usage with exit code 2 and a message, failed operations with 1', () => {
    const bad = vconsole('keys', 'create', '--data-dir', dir, '--name', 'x', '--environment', 'staging');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--environment must be sandbox or live');
    expect(vconsole('wallet', 'topup', '-5', '--data-dir', dir).code).toBe(2);
    expect(vconsole('frobnicate').code).toBe(2);
    const missing = vconsole('keys', 'revoke', 'key_doesnotexist', '--data-dir', dir);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/No API key/);
    const dup = vconsole('bootstrap', '--data-dir', dir, '--email', 'owner@cli.test', '--password', 'cli-password-1');
    expect(dup.code).toBe(1);
  });

  it('refuses a second organization, and key names the API refuses', () => {
    // Another owner and organization: refused as the console's set-up refuses it (every command acts for the first).
    const second = vconsole('bootstrap', '--data-dir', dir, '--email', 'other@cli.test', '--password', 'cli-password-2', '--org', 'Second');
    expect([second.code, second.err]).toEqual([1, expect.stringContaining('already set up')]);
    const users = JSON.parse(vconsole('users', 'list', '--data-dir', dir, '--json').out) as { email: string }[];
    expect(users.map((u) => u.email)).not.toContain('other@cli.test');
    for (const name of ['   ', 'x'.repeat(101)]) {
      const r = vconsole('keys', 'create', '--data-dir', dir, '--name', name, '--environment', 'sandbox');
      expect([r.code, r.err], name.slice(0, 10)).toEqual([2, expect.stringContaining('--name must be 1 to 100 characters')]);
    }
    const trimmed = JSON.parse(vconsole('keys', 'create', '--data-dir', dir, '--name', '  ci two  ', '--environment', 'sandbox', '--json').out) as { name: string };
    expect(trimmed.name).toBe('ci two');
  });

  it('db commands say where a store is missing or unreadable, and refuse SQLite file operations on a team database', () => {
    const none = join(dir, 'no-such-folder');
    const missing = vconsole('db', 'check', '--data-dir', none);
    expect([missing.code, missing.err]).toEqual([1, expect.stringContaining(`no store in ${none}`)]);
    expect(existsSync(none)).toBe(false);
    const damaged = mkdtempSync(join(tmpdir(), 'vc-cli-damaged-'));
    more.push(damaged);
    writeFileSync(join(damaged, 'verification-console.sqlite'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(8192, 7)]));
    const report = vconsole('db', 'check', '--data-dir', damaged, '--json');
    expect(report.code).toBe(1);
    expect(JSON.parse(report.out)).toMatchObject({ engine: 'sqlite', readable: false });
    // A team server's command line (the URL set): backup, backups and restore copy a SQLite file, so they are refused
    // with the way that applies, and nothing is made in a local folder. (Nothing listens on port 1: never dialled.)
    const team = mkdtempSync(join(tmpdir(), 'vc-cli-team-'));
    more.push(team);
    const env = { VCONSOLE_DATABASE_URL: 'postgres://vc@127.0.0.1:1/vc', VCONSOLE_DATA_DIR: team };
    for (const [args, word] of [[['db', 'backup'], 'pg_dump'], [['db', 'backups'], 'pg_dump'], [['db', 'restore', join(dir, 'verification-console.sqlite')], 'pg_restore']] as const) {
      const r = vconsoleWith(env, ...args);
      expect([r.code, r.err], args.join(' ')).toEqual([1, expect.stringContaining(word)]);
    }
    expect(readdirSync(team)).toEqual([]);
    // --data-dir naming a SQLite store still means that store, URL or not.
    expect(vconsoleWith(env, 'db', 'backups', '--data-dir', dir).code).toBe(0);
    // --data-dir naming a folder without a store (a team instance's, for its key) is the database's: no stray store.
    const listed = vconsoleWith({ VCONSOLE_DATABASE_URL: env.VCONSOLE_DATABASE_URL }, 'keys', 'list', '--data-dir', team);
    expect(listed.code).toBe(1);
    expect(existsSync(join(team, 'verification-console.sqlite'))).toBe(false);
    // bootstrap with the team URL exported and a --data-dir without a store: a new local store, or the team database
    // with that folder's key? Each reading was once taken and bit someone (a stray SQLite store the team never saw; a
    // local set-up that went to the team). It asks, exit 2, creating nothing.
    const local = join(team, 'new-local');
    const boot = vconsoleWith({ VCONSOLE_DATABASE_URL: env.VCONSOLE_DATABASE_URL }, 'bootstrap', '--data-dir', local, '--email', 'local@cli.test', '--password', 'cli-password-3');
    expect([boot.code, boot.err]).toEqual([2, expect.stringContaining('run bootstrap without --data-dir')]);
    expect(boot.err).toContain('unset VCONSOLE_DATABASE_URL');
    expect(existsSync(join(local, 'verification-console.sqlite'))).toBe(false);
    // Without the URL it makes the local store.
    expect(vconsoleWith({ VCONSOLE_DATABASE_URL: '' }, 'bootstrap', '--data-dir', local, '--email', 'local@cli.test', '--password', 'cli-password-3').code).toBe(0);
    expect(existsSync(join(local, 'verification-console.sqlite'))).toBe(true);
  });

  it('exits quietly (0, no stack trace) when the reader of its output has gone (EPIPE)', async () => {
    for (const args of [['--help'], ['keys', 'list', '--data-dir', dir, '--json'], ['audit', 'export', '--data-dir', dir, '--format', 'csv']]) {
      const r = await vconsoleIntoClosedPipe(...args);
      expect(r.err, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
    }
  });

  it('audit verify --file: a malformed export is a plain "not an audit export" and exit 1; a cut-short export counts every entry it holds', () => {
    const good = join(dir, 'audit.json');
    expect(vconsole('audit', 'export', '--data-dir', dir, '--out', good).code).toBe(0);
    const x = JSON.parse(readFileSync(good, 'utf8')) as { entries: unknown[] };
    expect(vconsole('audit', 'verify', '--file', good).code).toBe(0);
    const malformed: [string, string, RegExp][] = [
      ['null.json', 'null', /not an audit export/],
      ['a1.json', '{"format":"vconsole-audit-1"}', /not an audit export: it has no organizationId/],
      ['a1b.json', JSON.stringify({ ...x, entries: undefined }), /not an audit export: it has no entries/],
      ['a2.json', JSON.stringify({ ...x, entries: [{}] }), /not an audit export: entry 1 /],
      ['a3.json', '{not json', /not an audit export|cannot read/],
      ['missing.json', '', /cannot read/],
    ];
    for (const [name, text, message] of malformed) {
      if (text !== '') writeFileSync(join(dir, name), text);
      const r = vconsole('audit', 'verify', '--file', join(dir, name));
      expect(r.code, `${name}: ${r.err}`).toBe(1);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/Cannot read properties|is not iterable|Usage:/);
    }
    const cut = join(dir, 'audit-cut.json');
    const n = x.entries.length;
    writeFileSync(cut, JSON.stringify({ ...x, entries: x.entries.slice(0, -1) }));
    const r = vconsole('audit', 'verify', '--file', cut);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`The ${n - 1} entries it holds verify`);
    expect(r.out).not.toContain('((head))');
  });

  it('refuses an empty --data-dir, and a data folder with no store for commands other than bootstrap, creating nothing', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vc-cli-cwd-'));
    const inCwd = spawnSync(process.execPath, [join(process.cwd(), 'bin', 'vconsole.mjs'), 'keys', 'list', '--data-dir', ''], { cwd, encoding: 'utf8', env: { ...process.env, VCONSOLE_DATA_DIR: '' } });
    expect(inCwd.status).toBe(2);
    expect(inCwd.stderr).toContain('--data-dir must not be empty');
    expect(readdirSync(cwd)).toEqual([]);

    const missing = join(cwd, 'typo');
    for (const args of [['keys', 'list'], ['audit', 'verify'], ['wallet', 'show'], ['providers', 'list'], ['verify', 'account', '--body', '{"country":"NG","accountNumber":"0123456789","bankCode":"058"}']]) {
      const r = vconsole(...args, '--data-dir', missing);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`No store in ${missing}`);
      expect(existsSync(missing)).toBe(false);
    }
    const empty = join(cwd, 'empty');
    mkdirSync(empty);
    const r = vconsole('audit', 'list', '--data-dir', empty);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`No store in ${empty}`);
    expect(readdirSync(empty)).toEqual([]);

    // bootstrap still makes a new folder and its store.
    const fresh = join(cwd, 'new', 'folder');
    expect(vconsole('bootstrap', '--data-dir', fresh, '--email', 'o@cli.test', '--password', 'cli-password-1').code).toBe(0);
    expect(vconsole('keys', 'list', '--data-dir', fresh).code).toBe(0);
  });

  it('providers list and set show no circuit state of their own (it lives in the running service) instead of a fake "closed"', () => {
    const own = mkdtempSync(join(tmpdir(), 'vc-cli-providers-'));
    more.push(own);
    expect(vconsole('bootstrap', '--data-dir', own, '--email', 'owner@cli.test', '--password', 'cli-password-1').code).toBe(0);
    const set = vconsole('providers', 'set', 'p-state', '--adapter', 'generic', '--base-url', 'http://127.0.0.1:9', '--route', 'account:ZA', '--data-dir', own);
    expect(set.code, set.err).toBe(0);
    const list = vconsole('providers', 'list', '--data-dir', own);
    expect(list.code, list.err).toBe(0);
    for (const out of [set.out, list.out]) expect(out).not.toMatch(/circuit (closed|open|half-open)/);
    expect(list.out).toContain('kept by the running service: see its console');
    const json = JSON.parse(vconsole('providers', 'list', '--json', '--data-dir', own).out) as { providers: { id: string; state: unknown }[] };
    expect(json.providers.find((p) => p.id === 'p-state')!.state).toBeNull();
  });

  it('providers: a missing or invalid --mapping-file is a usage error naming the file (as --ca-file), and cache-ttl names SECONDS', () => {
    const missing = join(dir, 'no-mapping.json');
    const m = vconsole('providers', 'set', 'p1', '--adapter', 'generic', '--mapping-file', missing, '--data-dir', dir);
    const ca = vconsole('providers', 'set', 'p1', '--adapter', 'generic', '--ca-file', missing, '--data-dir', dir);
    expect(ca.code).toBe(2);
    expect(m.code).toBe(ca.code);
    expect(m.err).toContain(`cannot read --mapping-file ${missing}: ENOENT`);
    const bad = join(dir, 'bad-mapping.json');
    writeFileSync(bad, '{bad');
    const b = vconsole('providers', 'set', 'p1', '--adapter', 'generic', '--mapping-file', bad, '--data-dir', dir);
    expect(b.code).toBe(2);
    expect(b.err).toContain(`--mapping-file ${bad} is not valid JSON`);
    const ttl = vconsole('providers', 'cache-ttl', 'account', '--data-dir', dir);
    expect(ttl.code).toBe(2);
    expect(ttl.err).toContain('providers cache-ttl: SECONDS must be a whole number');
    expect(ttl.err).not.toContain('--SECONDS');
  });
});
