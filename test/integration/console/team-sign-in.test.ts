// Team sign-in of the web console (issue 17 item 3, docs/team-server.md), over real HTTP against the real service:
// sign-in success and failure, cookie flags, the throttle per account and per client address (real addresses:
// requests leave from 127.0.0.x, all loopback on Linux), every attempt audited, each role against every console
// channel, sign-out and session expiry (the clock is the only thing faked), the Host and Origin checks of a public
// URL, and files confined to the user's uploads.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHANNELS, type ChannelName } from '../../../src-shared/channels';
import { CHANNEL_MIN_ROLE, ROLE_RANK } from '../../../src-shared/channel-roles';
import type { Role } from '../../../src-shared/schemas/auth';
import { ManualClock } from '../../../src-main/core/clock';
import { createUser } from '../../../src-main/core/orgs/organizations';
import { dummyPasswordHash, passwordPoolLoad } from '../../../src-main/core/auth/passwords';
import { ACCOUNT_MAX_FAILURES, ADDRESS_MAX_CONCURRENT, ADDRESS_MAX_FAILURES, checkPassword, signInsInFlight, throttleAddress } from '../../../src-main/core/auth/sign-in';
import { CONSOLE_IDLE_MS, CONSOLE_SESSION_TTL_MS } from '../../../src-main/core/auth/console-sessions';
import { deactivateUser, setUserRole } from '../../../src-main/core/settings/users';
import { sqliteOnly, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { LIVE_HEARTBEAT_MS } from '../../../src-main/console/web-bridge';

const HOST = 'team.test';
const ORIGIN = `http://${HOST}`;
const PASSWORDS: Record<Role, string> = { OWNER: TEST_PASSWORD, ADMIN: 'admin password 1234', DEVELOPER: 'developer password 1234' };

let ts: TestService;
const clock = new ManualClock();
const emails = {} as Record<Role, string>;

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

interface Opts {
  body?: unknown;
  cookie?: string;
  host?: string;
  origin?: string | null;
  /** The client address the request leaves from (any 127.0.0.x on Linux). */
  from?: string;
  headers?: Record<string, string>;
}

function send(method: string, path: string, o: Opts = {}): Promise<Res> {
  const headers: Record<string, string> = { Host: o.host ?? HOST, ...(o.headers ?? {}) };
  if (o.origin !== null) headers['Origin'] = o.origin ?? ORIGIN;
  if (o.cookie) headers['Cookie'] = o.cookie;
  let payload: string | undefined;
  if (o.body !== undefined) {
    payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['Content-Type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: ts.port, method, path, headers, localAddress: o.from ?? '127.0.0.1', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

const signIn = (email: string, password: string, o: Opts = {}) => send('POST', '/console/sign-in', { ...o, body: { email, password } });
const bridge = (channel: string, body: unknown, cookie?: string, o: Opts = {}) => send('POST', `/console/bridge/${channel}`, { ...o, body, ...(cookie ? { cookie } : {}) });

function cookieOf(r: Res): string {
  const set = r.headers['set-cookie']?.[0] ?? '';
  return set.split(';')[0]!;
}

async function session(role: Role): Promise<string> {
  const r = await signIn(emails[role], PASSWORDS[role]);
  expect(r.status, r.text).toBe(200);
  return cookieOf(r);
}

async function audit(action: string): Promise<{ actor: { label: string; type: string }; door: string; detail: Record<string, unknown> }[]> {
  const rows = await ts.service.deps.sql.all<{ actor_type: string; actor_label: string; door: string; detail: string }>(
    'SELECT actor_type, actor_label, door, detail FROM audit_events WHERE action = ? ORDER BY seq',
    [action],
  );
  return rows.map((r) => ({ actor: { type: r.actor_type, label: r.actor_label }, door: r.door, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}

/** Moves the clock past the throttle window, so each test starts with no failure counting. */
function forgetFailures() {
  clock.advance(16 * 60_000);
}

beforeAll(async () => {
  const rendererDir = mkdtempSync(join(tmpdir(), 'vc-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>console</title>');
  ts = await startTestService({ webConsole: true, rendererDir, publicUrl: ORIGIN, clock });
  emails.OWNER = ts.email;
  for (const role of ['ADMIN', 'DEVELOPER'] as const) {
    emails[role] = `${role.toLowerCase()}@team.test`;
    await createUser(ts.service.deps, ts.org!.organizationId, { email: emails[role], password: PASSWORDS[role], role });
  }
});

afterAll(async () => {
  await ts?.stop();
});

describe('signing in', () => {
  it('a console user signs in: an HttpOnly, SameSite=Strict session cookie (not Secure over http), audited', async () => {
    forgetFailures();
    const r = await signIn(emails.DEVELOPER, PASSWORDS.DEVELOPER);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ ok: true, user: { email: emails.DEVELOPER, role: 'DEVELOPER' } });
    const set = r.headers['set-cookie']?.[0] ?? '';
    expect(set).toMatch(/^vc_session=[A-Za-z0-9_-]{40,};/);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\//);
    expect(set).toMatch(new RegExp(`; Max-Age=${CONSOLE_SESSION_TTL_MS / 1000}`));
    expect(set).not.toMatch(/Secure/);
    // Only a digest of the cookie is stored.
    const token = cookieOf(r).split('=')[1]!;
    const stored = await ts.service.deps.sql.all<{ token_hash: string }>('SELECT token_hash FROM console_sessions');
    expect(stored.some((s) => s.token_hash === token)).toBe(false);
    // The session works: app:info names the signed-in user and the way in.
    const info = await bridge('app:info', {}, cookieOf(r));
    expect(info.body).toMatchObject({ ok: true, value: { signIn: 'password', user: { email: emails.DEVELOPER, role: 'DEVELOPER' } } });
    const ok = (await audit('auth.login_succeeded')).at(-1)!;
    expect(ok).toMatchObject({ door: 'console', actor: { type: 'user', label: emails.DEVELOPER }, detail: { email: emails.DEVELOPER, ip: '127.0.0.1' } });
  });

  it('a wrong password and an unknown email get the same 401, set no cookie, and are audited without the password', async () => {
    forgetFailures();
    const before = (await audit('auth.login_failed')).length;
    const wrong = await signIn(emails.ADMIN, 'not the password at all');
    const unknown = await signIn('nobody@team.test', 'not the password at all');
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('INVALID_CREDENTIALS');
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    expect(wrong.body.message).toBe(unknown.body.message);
    const entries = (await audit('auth.login_failed')).slice(before);
    expect(entries.map((e) => e.detail)).toEqual([
      { email: emails.ADMIN, ip: '127.0.0.1', reason: 'wrong password' },
      { email: 'nobody@team.test', ip: '127.0.0.1', reason: 'unknown email' },
    ]);
    expect(entries.every((e) => e.door === 'console')).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('not the password at all');
  });

  it('refuses a malformed body with 422 and a sign-in from another origin with 403', async () => {
    const bad = await send('POST', '/console/sign-in', { body: { email: 'x', password: '' } });
    expect(bad.status).toBe(422);
    const cross = await signIn(emails.OWNER, PASSWORDS.OWNER, { origin: 'http://evil.test' });
    expect(cross.status).toBe(403);
    expect(cross.headers['set-cookie']).toBeUndefined();
    const none = await signIn(emails.OWNER, PASSWORDS.OWNER, { origin: null });
    expect(none.status).toBe(403);
  });

  it('without a session every console door answers 401 SIGN_IN_REQUIRED, and no one-time link exists', async () => {
    expect(ts.service.consoleUrl()).toBe(`${ORIGIN}/console/`);
    const s = await send('POST', '/console/session', { body: { token: 'anything' } });
    expect(s.status).toBe(401);
    expect(s.body.code).toBe('SIGN_IN_REQUIRED');
    for (const r of [
      await bridge('keys:list', {}),
      await bridge('app:info', {}, 'vc_session=forged-0000000000000000000000000000000000000000'),
      await send('GET', '/console/events', { headers: { 'Sec-Fetch-Site': 'same-origin' }, origin: null }),
      await send('GET', '/console/batch/bat_x/download'),
    ]) {
      expect(r.status, r.text).toBe(401);
      expect(r.body.code).toBe('SIGN_IN_REQUIRED');
    }
  });
});

describe('the sign-in throttle', () => {
  it(`${ACCOUNT_MAX_FAILURES} failures for one account → 429 with Retry-After, from any address; other accounts are not slowed`, async () => {
    forgetFailures();
    for (let i = 0; i < ACCOUNT_MAX_FAILURES; i++) expect((await signIn(emails.ADMIN, `wrong ${i} password`, { from: '127.0.0.2' })).status).toBe(401);
    const before = (await audit('auth.login_throttled')).length;
    const locked = await signIn(emails.ADMIN, PASSWORDS.ADMIN, { from: '127.0.0.2' });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // The account's limit holds from another address too (decisions §6: per account).
    expect((await signIn(emails.ADMIN, PASSWORDS.ADMIN, { from: '127.0.0.3' })).status).toBe(429);
    // Another account signs in at once, from the same address.
    expect((await signIn(emails.DEVELOPER, PASSWORDS.DEVELOPER, { from: '127.0.0.2' })).status).toBe(200);
    const throttled = (await audit('auth.login_throttled')).slice(before);
    expect(throttled).toHaveLength(2);
    expect(throttled[0]!.detail).toMatchObject({ email: emails.ADMIN, ip: '127.0.0.2', reason: 'account' });
    // The limit lifts when the failures leave the window.
    clock.advance(Number(locked.headers['retry-after']) * 1000);
    expect((await signIn(emails.ADMIN, PASSWORDS.ADMIN, { from: '127.0.0.2' })).status).toBe(200);
  });

  it(`${ADDRESS_MAX_FAILURES} failures from one address, over many accounts → 429 for that address only`, async () => {
    forgetFailures();
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) expect((await signIn(`guess-${i}@team.test`, 'wrong password', { from: '127.0.0.4' })).status).toBe(401);
    const blocked = await signIn(emails.OWNER, PASSWORDS.OWNER, { from: '127.0.0.4' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/from this address/);
    expect((await audit('auth.login_throttled')).at(-1)!.detail).toMatchObject({ ip: '127.0.0.4', reason: 'address' });
    // The same account from another address is fine.
    expect((await signIn(emails.OWNER, PASSWORDS.OWNER, { from: '127.0.0.5' })).status).toBe(200);
  });

  it(`a burst from one address holds at most ${ADDRESS_MAX_CONCURRENT} places on the password pool; the rest are refused before hashing`, async () => {
    forgetFailures();
    let maxLoad = 0;
    let sampling = true;
    const sample = () => {
      const l = passwordPoolLoad();
      maxLoad = Math.max(maxLoad, l.running + l.waiting);
      if (sampling) setImmediate(sample);
    };
    sample();
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`burst-${i}@team.test`, 'wrong password', { from: '127.0.0.6' })));
    sampling = false;
    const statuses = burst.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 429), statuses.join(',')).toBe(true);
    expect(maxLoad, 'password checks of one address in flight at once').toBeLessThanOrEqual(ADDRESS_MAX_CONCURRENT);
    // Every attempt is audited: hashed ones as failures, refused ones as throttled (reason: concurrent).
    const refused = statuses.filter((s) => s === 429).length;
    const fromBurst = async (a: string) => (await audit(a)).filter((e) => String(e.detail['email']).startsWith('burst-')).length;
    expect((await fromBurst('auth.login_failed')) + (await fromBurst('auth.login_throttled'))).toBe(30);
    expect(await fromBurst('auth.login_throttled')).toBe(refused);
    // Someone else signs in straight after.
    expect((await signIn(emails.DEVELOPER, PASSWORDS.DEVELOPER, { from: '127.0.0.7' })).status).toBe(200);
  });

  it('the gate itself: attempts started together from one address — the third is refused without waiting for a hash', async () => {
    forgetFailures();
    const deps = ts.service.deps;
    const attempts = [0, 1, 2].map((i) => checkPassword(deps, `gate-${i}@team.test`, 'wrong password', { ip: '192.0.2.1' }).then(() => 'ok', (e: { code?: string; message?: string }) => e.code));
    // Another address is not held up by them.
    const other = checkPassword(deps, emails.DEVELOPER, PASSWORDS.DEVELOPER, { ip: '192.0.2.2' }).then((u) => u.email);
    expect(await Promise.all(attempts)).toEqual(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'TOO_MANY_LOGIN_ATTEMPTS']);
    expect(await other).toBe(emails.DEVELOPER);
    expect(signInsInFlight(deps.sql, '192.0.2.1')).toBe(0);
  });
});

describe('a deactivated account', () => {
  it('costs a full password check like an unknown email (no timing tell), answers the same 401, and is audited as such', async () => {
    forgetFailures();
    const deps = ts.service.deps;
    const email = 'leaver@team.test';
    const password = 'leaver password 1234';
    const { id } = await createUser(deps, ts.org!.organizationId, { email, password, role: 'DEVELOPER' });
    await deactivateUser(deps, { kind: 'console', organizationId: ts.org!.organizationId, environment: 'sandbox', role: 'OWNER' }, id);
    await dummyPasswordHash(deps.config.scryptN);
    // The load is read once per turn of the event loop, in its check phase (setImmediate). The hash goes to the
    // password pool in the microtasks after the store's last answer (SQLite: resolved promises; PostgreSQL: a socket
    // read in the poll phase), so it is on the pool by the next check phase; the pool's answer is a worker message,
    // handled no earlier than the following poll phase. The load is thus seen while the hash is in flight, on both
    // engines (the bound only keeps a broken check from spinning for ever: a time, not a number of turns, since the
    // store's answers before the hash — the reservation's transaction among them — take as long as they take).
    const before = passwordPoolLoad();
    const load = () => passwordPoolLoad().running + passwordPoolLoad().waiting;
    const attempt = checkPassword(deps, email, password, { ip: '192.0.2.9' }).then(() => 'ok', (e: { code?: string }) => e.code);
    const giveUpAt = Date.now() + 10_000;
    while (Date.now() < giveUpAt && load() === before.running + before.waiting) await new Promise((r) => setImmediate(r));
    const during = passwordPoolLoad();
    expect(during.running + during.waiting, 'a deactivated account is hashed like any other').toBe(before.running + before.waiting + 1);
    expect(await attempt).toBe('INVALID_CREDENTIALS');
    // Over HTTP: the very answer an unknown email gets, and an audit entry saying why.
    const r = await signIn(email, password, { from: '127.0.0.9' });
    const unknown = await signIn('nobody-here@team.test', password, { from: '127.0.0.9' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(unknown.body);
    expect((await audit('auth.login_failed')).filter((e) => e.detail['email'] === email).map((e) => e.detail['reason'])).toEqual(['deactivated user', 'deactivated user']);
  });
});

describe('the per-address limits over IPv6', () => {
  const why = (m = '') => (/^Too many failed sign-in attempts from this address/.test(m) ? ' (address)' : /still being checked/.test(m) ? ' (concurrent)' : '');
  const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string; message?: string }) => `${e.code}${why(e.message)}`);

  it('an IPv6 client counts as its /64, an IPv4-mapped address as its IPv4 address', () => {
    expect(throttleAddress('2001:db8:a:b:1:2:3:4')).toBe('2001:db8:a:b::/64');
    expect(throttleAddress('2001:db8:a:b::ffff')).toBe('2001:db8:a:b::/64');
    expect(throttleAddress('2001:db8:a:c::1')).toBe('2001:db8:a:c::/64');
    expect(throttleAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(throttleAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(throttleAddress(null)).toBeNull();
  });

  it(`${ADDRESS_MAX_FAILURES} failures from as many addresses of one /64 → 429 for that /64; its neighbour /64 is not held`, async () => {
    forgetFailures();
    const deps = ts.service.deps;
    for (let i = 0; i < ADDRESS_MAX_FAILURES; i++) {
      expect(await outcome(checkPassword(deps, `v6-guess-${i}@team.test`, 'wrong password', { ip: `2001:db8:a:b::${(i + 1).toString(16)}` }))).toBe('INVALID_CREDENTIALS');
    }
    // A fresh address of the same /64 is refused before hashing…
    expect(await outcome(checkPassword(deps, emails.OWNER, PASSWORDS.OWNER, { ip: '2001:db8:a:b:ffff::1' }))).toBe('TOO_MANY_LOGIN_ATTEMPTS (address)');
    expect((await audit('auth.login_throttled')).at(-1)!.detail).toMatchObject({ ip: '2001:db8:a:b:ffff::1', reason: 'address' });
    // …another /64 is not.
    expect(await outcome(checkPassword(deps, emails.OWNER, PASSWORDS.OWNER, { ip: '2001:db8:a:c::1' }))).toBe('ok');
  });

  it(`attempts started together from addresses of one /64 hold at most ${ADDRESS_MAX_CONCURRENT} places on the password pool`, async () => {
    forgetFailures();
    const deps = ts.service.deps;
    const attempts = [1, 2, 3].map((i) => outcome(checkPassword(deps, `v6-gate-${i}@team.test`, 'wrong password', { ip: `2001:db8:d:e::${i}` })));
    expect(await Promise.all(attempts)).toEqual(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'TOO_MANY_LOGIN_ATTEMPTS (concurrent)']);
    expect(signInsInFlight(deps.sql, '2001:db8:d:e::1')).toBe(0);
  });
});

describe('roles in every console channel', () => {
  const roles: Role[] = ['OWNER', 'ADMIN', 'DEVELOPER'];

  it('each role against each channel: below the channel’s role → FORBIDDEN before the input is even read', async () => {
    forgetFailures();
    const cookies = {} as Record<Role, string>;
    for (const role of roles) cookies[role] = await session(role);
    let checked = 0;
    for (const channel of Object.keys(CHANNELS) as ChannelName[]) {
      for (const role of roles) {
        // An input no channel accepts: an allowed call stops at validation, so nothing runs or changes.
        const r = await bridge(channel, [0], cookies[role]);
        expect(r.status, `${role} ${channel}: ${r.text}`).toBe(200);
        const allowed = ROLE_RANK[role] >= ROLE_RANK[CHANNEL_MIN_ROLE[channel]];
        if (allowed) expect(r.body.error?.code, `${role} may call ${channel}`).toBe('VALIDATION_ERROR');
        else {
          expect(r.body.error?.code, `${role} may not call ${channel}`).toBe('FORBIDDEN');
          expect(r.body.error.message).toContain(`${channel} needs ${CHANNEL_MIN_ROLE[channel]}`);
        }
        checked++;
      }
    }
    expect(checked).toBe(Object.keys(CHANNELS).length * 3);
  });

  it('the audit export’s download answers to the channel’s role: a developer is refused, an admin gets the file', async () => {
    forgetFailures();
    const get = (cookie: string) => send('GET', '/console/audit/export?format=csv', { cookie, origin: null, headers: { 'Sec-Fetch-Site': 'same-origin' } });
    const dev = await get(await session('DEVELOPER'));
    expect(dev.status, dev.text).toBe(403);
    expect(dev.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('audit:export needs ADMIN') });
    const admin = await get(await session('ADMIN'));
    expect(admin.status, admin.text).toBe(200);
    expect(admin.headers['content-disposition']).toMatch(/^attachment; filename="audit-.*\.csv"; filename\*=UTF-8''audit-.*\.csv$/);
    expect(admin.text.startsWith('\uFEFFseq,id,at,')).toBe(true);
  });

  // Console backups are of the SQLite store (PostgreSQL: pg_dump, docs/team-server.md "Backups").
  sqliteOnly.it('a backup that includes the data key is an owner’s: an admin may back up without it, not with it', async () => {
    forgetFailures();
    const admin = await session('ADMIN');
    const withKey = await bridge('backups:create', { includeKey: true }, admin);
    expect(withKey.status).toBe(200);
    expect(withKey.body).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(withKey.body.error.message).toContain('secret.key');
    const plain = await bridge('backups:create', {}, admin);
    expect(plain.body.ok, plain.text).toBe(true);
    clock.advance(1_000); // backups are named by the second
    const ownerCall = await bridge('backups:create', { includeKey: true }, await session('OWNER'));
    expect(ownerCall.body.ok, ownerCall.text).toBe(true);
  });

  it('real calls: a developer verifies but cannot create a key or a user; an admin can; each is audited as its user', async () => {
    forgetFailures();
    const dev = await session('DEVELOPER');
    const admin = await session('ADMIN');
    const keys = async () => (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM api_keys'))!.n;
    const before = await keys();
    const refused = await bridge('keys:create', { name: 'from a developer', environment: 'sandbox' }, dev);
    expect(refused.body).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const noUser = await bridge('users:create', { email: 'new@team.test', password: 'temporary pass 1', role: 'DEVELOPER' }, dev);
    expect(noUser.body.error.code).toBe('FORBIDDEN');
    expect(await keys()).toBe(before);
    const made = await bridge('keys:create', { name: 'from an admin', environment: 'sandbox' }, admin);
    expect(made.body.ok, made.text).toBe(true);
    expect(await keys()).toBe(before + 1);
    expect((await audit('key.created')).at(-1)).toMatchObject({ door: 'console', actor: { type: 'user', label: emails.ADMIN } });
    // The core's finer rules still apply: an admin cannot make someone an owner.
    const devId = (await ts.service.deps.sql.get<{ id: string }>('SELECT id FROM users WHERE email = ?', [emails.DEVELOPER]))!.id;
    const promote = await bridge('users:setRole', { id: devId, role: 'OWNER' }, admin);
    expect(promote.body.error.code).toBe('FORBIDDEN');
    const verified = await bridge('verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058' } }, dev);
    expect(verified.body.ok, verified.text).toBe(true);
    const row = await ts.service.deps.sql.get<Record<string, string>>('SELECT actor_type, actor_label, door FROM verifications WHERE id = ?', [verified.body.value.id]);
    expect(row).toMatchObject({ actor_type: 'user', actor_label: emails.DEVELOPER, door: 'console' });
  });

  it('a team user may name only files uploaded through the console', async () => {
    forgetFailures();
    const dev = await session('DEVELOPER');
    const outside = await bridge('batch:preview', { path: '/etc/passwd' }, dev);
    expect(outside.body).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const sneaky = await bridge('batch:preview', { path: join(ts.dataDir, 'uploads', '..', 'verification-console.sqlite') }, dev);
    expect(sneaky.body.error.code).toBe('FORBIDDEN');
    const uploaded = await new Promise<Res>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: ts.port, method: 'POST', path: '/console/upload?name=rows.csv', headers: { Host: HOST, Origin: ORIGIN, Cookie: dev, 'Content-Type': 'text/csv' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end('country,account_number,bank_code\nNG,0123456789,058\n');
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const inside = await bridge('batch:preview', { path: uploaded.body.path }, dev);
    expect(inside.body.ok, inside.text).toBe(true);
  });
});

describe('signing out and session expiry', () => {
  it('sign-out ends the session at once, clears the cookie and is audited', async () => {
    forgetFailures();
    const dev = await session('DEVELOPER');
    expect((await bridge('app:info', {}, dev)).status).toBe(200);
    const out = await send('POST', '/console/sign-out', { cookie: dev });
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']?.[0]).toMatch(/^vc_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0/);
    const after = await bridge('app:info', {}, dev);
    expect(after.status).toBe(401);
    expect((await audit('auth.logout')).at(-1)).toMatchObject({ door: 'console', actor: { label: emails.DEVELOPER } });
  });

  it('signing in again from the same browser ends the session it held (one browser, one session)', async () => {
    forgetFailures();
    const first = await session('DEVELOPER');
    expect((await bridge('app:info', {}, first)).status).toBe(200);
    const again = await signIn(emails.DEVELOPER, PASSWORDS.DEVELOPER, { cookie: first });
    expect(again.status, again.text).toBe(200);
    const second = cookieOf(again);
    expect(second).not.toBe(first);
    expect((await bridge('app:info', {}, first)).status).toBe(401);
    expect((await bridge('app:info', {}, second)).status).toBe(200);
    // A failed sign-in leaves the session the browser holds alone.
    const wrong = await signIn(emails.DEVELOPER, 'not the password', { cookie: second });
    expect(wrong.status).toBe(401);
    expect((await bridge('app:info', {}, second)).status).toBe(200);
  });

  it('a session ends after an hour without a call, and twelve hours after sign-in whatever the use', async () => {
    forgetFailures();
    const idle = await session('DEVELOPER');
    clock.advance(CONSOLE_IDLE_MS - 60_000);
    expect((await bridge('app:info', {}, idle)).status).toBe(200);
    clock.advance(CONSOLE_IDLE_MS - 60_000);
    expect((await bridge('app:info', {}, idle)).status, 'used within the hour: still on').toBe(200);
    clock.advance(CONSOLE_IDLE_MS);
    expect((await bridge('app:info', {}, idle)).status, 'an hour idle: ended').toBe(401);

    const busy = await session('DEVELOPER');
    for (let t = 0; t < CONSOLE_SESSION_TTL_MS - 30 * 60_000; t += 30 * 60_000) {
      clock.advance(30 * 60_000);
      expect((await bridge('app:info', {}, busy)).status).toBe(200);
    }
    clock.advance(30 * 60_000);
    expect((await bridge('app:info', {}, busy)).status, 'twelve hours: ended').toBe(401);
  });

  it('an open live-event stream does not keep an unattended session alive: it ends with the idle hour', async () => {
    forgetFailures();
    const dev = await session('DEVELOPER');
    // The stream's heartbeat timer is the only one faked (with the ManualClock, the clock is all that is).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let text = '';
    let ended = false;
    let waiters: (() => void)[] = [];
    const changed = () => new Promise<void>((r) => waiters.push(r));
    const wake = () => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    const req = httpRequest(
      { host: '127.0.0.1', port: ts.port, method: 'GET', path: '/console/events', headers: { Host: HOST, Cookie: dev, 'Sec-Fetch-Site': 'same-origin' }, agent: false },
      (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (c: string) => ((text += c), wake()));
        res.on('end', () => ((ended = true), wake()));
      },
    );
    req.end();
    try {
      while (!text.includes('event: hello')) await changed();
      let beats = 0;
      // Ten minutes a heartbeat, no console call: the hour without a call passes at the sixth.
      for (let i = 1; i <= 7 && !ended; i++) {
        clock.advance(10 * 60_000);
        const seen = text.split(': keep-alive').length - 1;
        vi.advanceTimersByTime(LIVE_HEARTBEAT_MS);
        while (!ended && text.split(': keep-alive').length - 1 === seen) await changed();
        if (!ended) beats++;
      }
      expect(ended, 'the stream ended with the session').toBe(true);
      expect(beats).toBe(5);
      expect((await bridge('app:info', {}, dev)).status).toBe(401);
    } finally {
      vi.useRealTimers();
      req.destroy();
    }
  });

  it('a role change ends the user’s console sessions (their rights were decided at the old role)', async () => {
    forgetFailures();
    const admin = await session('ADMIN');
    const adminId = (await ts.service.deps.sql.get<{ id: string }>('SELECT id FROM users WHERE email = ?', [emails.ADMIN]))!.id;
    await setUserRole(ts.service.deps, { kind: 'console', organizationId: ts.org!.organizationId, environment: 'sandbox', role: 'OWNER' }, adminId, 'DEVELOPER');
    expect((await bridge('app:info', {}, admin)).status).toBe(401);
    await setUserRole(ts.service.deps, { kind: 'console', organizationId: ts.org!.organizationId, environment: 'sandbox', role: 'OWNER' }, adminId, 'ADMIN');
  });
});

describe('the public URL’s Host and Origin', () => {
  it('answers only Host team.test (and team.test:80); loopback names and others are refused with 403', async () => {
    for (const host of [HOST, `${HOST}:80`]) expect((await send('GET', '/api/v1/health', { host })).status, host).toBe(200);
    for (const host of [`127.0.0.1:${ts.port}`, `localhost:${ts.port}`, 'evil.test', `${HOST}:81`, `${HOST}.evil.test`, '']) {
      const r = await send('GET', '/api/v1/health', { host });
      expect(r.status, host).toBe(403);
      expect(r.body.code).toBe('FORBIDDEN');
      expect((await send('POST', '/console/sign-in', { host, body: { email: emails.OWNER, password: PASSWORDS.OWNER } })).status, host).toBe(403);
    }
  });

  it('bridge calls from any origin but the public URL’s are refused, signed in or not', async () => {
    forgetFailures();
    const owner = await session('OWNER');
    for (const origin of [`http://127.0.0.1:${ts.port}`, 'http://evil.test', `https://${HOST}`, 'null']) {
      const r = await bridge('keys:list', {}, owner, { origin });
      expect(r.status, origin).toBe(403);
    }
    expect((await bridge('keys:list', {}, owner)).body.ok).toBe(true);
  });
});
