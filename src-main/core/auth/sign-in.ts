// The password check shared by both sign-in doors (POST /auth/login and the web console's team sign-in), with its
// brute-force throttle and its audit entries (docs/team-server.md, "Team sign-in and TLS").
//
// Throttle, checked before any hashing so that a throttled attempt costs no scrypt time:
// - per account: 10 failures for one email within 15 minutes → 429 (decisions §6);
// - per client address: 50 failures from one address within 15 minutes, whatever the emails → 429;
//   an IPv6 address counts as its /64 (one subscriber's network: a client picks any address in it at will),
//   an IPv4-mapped IPv6 address as its IPv4 address (throttleAddress());
// - in flight: at most 2 password checks of one address at once; more → 429 at once (counted by this process).
// Attempts still being hashed count as failures for their account's limit, so a burst of concurrent guesses cannot
// slip past it: before hashing, an attempt reserves a row of `login_reservations` in the same transaction that
// checks the limits (SQLite: one writer at a time; PostgreSQL: under an advisory lock of the account), and the row
// is turned into a failure (in one transaction) or deleted when the hash answers. Failures and reservations are
// both in the store, so every instance on a shared store counts every other's (a team server: two instances each
// counting only their own attempts in flight let up to 20 guesses through). A reservation counts for
// LOGIN_RESERVATION_MS at most: an instance that dies mid-check cannot lock the account for longer.
// The hashing itself runs on the password pool (passwords.ts): one address can hold at most two of its places, so
// a flood from one address neither waits in front of other people's sign-ins nor slows any other request.
// Every attempt — success, wrong password, unknown email, throttled — writes an audit entry (never the password).
import ipaddr from 'ipaddr.js';
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { CoreDeps } from '../context';
import type { SqlQueries } from '../../store/sql-port';
import { appendAudit, currentActor, type AuditWho } from '../audit/audit-log';
import { iso } from '../clock';
import { randomHex } from '../ids';
import { firstOrganizationId } from '../orgs/first-organization';
import { dummyPasswordHash, verifyPassword } from './passwords';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Failures for one account within the window before 429 (decisions §6). */
export const ACCOUNT_MAX_FAILURES = 10;
/** Failures from one client address within the window, across accounts, before 429. */
export const ADDRESS_MAX_FAILURES = 50;
/** Password checks of one client address running or queued at once. */
export const ADDRESS_MAX_CONCURRENT = 2;
/**
 * How long an attempt's reservation counts toward its account's limit if it is never settled (its instance died
 * mid-check). Far beyond a password check's time (0.1–0.3 s, plus its wait for a place on the password pool), so a
 * reservation never lapses while its check still runs.
 */
export const LOGIN_RESERVATION_MS = 60_000;
/**
 * PostgreSQL: the first key of an account's advisory lock, ("vl", hashtext(email)) — a class of its own, so it is
 * never one of the app's ("vc", n) locks (migrations, `db copy`, live demand).
 */
export const SIGN_IN_LOCK_CLASS = 0x766c;

export interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  password_hash: string;
  role: Role;
}

/** Where an attempt comes from: the client address (null where there is none, e.g. inject() in tests). */
export interface AttemptSource {
  ip: string | null;
}

/**
 * This process's password checks in flight per client address (the per-address limit only: the account's limit
 * counts reservations in the store), keyed by the store's port (checkPassword is never called inside a transaction).
 */
const inFlightOf = new WeakMap<object, Map<string, number>>();

function inFlight(q: SqlQueries): Map<string, number> {
  let f = inFlightOf.get(q);
  if (!f) inFlightOf.set(q, (f = new Map()));
  return f;
}

function bump(m: Map<string, number>, k: string, by: number): void {
  const n = (m.get(k) ?? 0) + by;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
}

/**
 * What the per-address limits count: an IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6 address as
 * its /64 — a single host is routinely handed a whole /64 and may use any address in it, so counting addresses
 * one by one would let it spread its guesses over 2^64 of them.
 */
export function throttleAddress(ip: string | null): string | null {
  if (ip === null || !ipaddr.isValid(ip)) return ip;
  const a = ipaddr.parse(ip);
  if (a.kind() === 'ipv4') return a.toString();
  const v6 = a as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/64`).toString()}/64`;
}

/** Password checks of one address in flight now (tests; the bench). */
export function signInsInFlight(q: SqlQueries, ip: string): number {
  return inFlight(q).get(throttleAddress(ip) ?? ip) ?? 0;
}

function retryAfter(rows: { at_ms: number }[], max: number, now: number): number {
  // The limit lifts when enough failures have left the window.
  const oldestThatCounts = rows[Math.max(0, rows.length - max)]?.at_ms ?? now;
  return Math.max(1, Math.ceil((oldestThatCounts + LOGIN_WINDOW_MS - now) / 1000));
}

type ThrottleReason = 'account' | 'address' | 'concurrent';

type Throttle = { reason: ThrottleReason; retryAfterSeconds: number };

/**
 * The store's limits (failures and reservations of the account, failures of the address), checked and — when none
 * is reached — a reservation taken for this attempt, in one transaction: the count and the insert cannot be split by
 * another attempt of the account, on this instance or any other. SQLite runs one transaction at a time. On PostgreSQL
 * the account's reservations are taken one at a time under its advisory lock, read committed: each statement after
 * the lock sees every reservation committed before it. (Serializable, as the service's transactions are by default,
 * the reservations of a burst conflict and are run again: some 150 retries for 40 concurrent attempts at one account,
 * which could use up a transaction's attempts.) Expired reservations of the account are removed on the way.
 */
async function reserve(deps: CoreDeps, email: string, ip: string | null): Promise<{ throttled: Throttle } | { reservation: string }> {
  const reservation = randomHex(12);
  const txOptions = { isolation: 'read committed' } as const;
  return deps.sql.transaction(async (tx) => {
    if (tx.engine === 'postgres') await tx.run(`SELECT pg_advisory_xact_lock(${SIGN_IN_LOCK_CLASS}, hashtext(?))`, [email]);
    const now = deps.clock.now();
    await tx.run('DELETE FROM login_reservations WHERE email = ? AND until_ms <= ?', [email, now]);
    // Reservations before failures: an attempt settled between the two reads (its reservation turned into a failure
    // by a transaction that takes no lock) is then counted twice, never missed.
    const pending = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM login_reservations WHERE email = ?', [email]))?.n ?? 0;
    const byEmail = await tx.all<{ at_ms: number }>('SELECT at_ms FROM login_failures WHERE email = ? AND at_ms > ? ORDER BY at_ms ASC', [email, now - LOGIN_WINDOW_MS]);
    if (byEmail.length + pending >= ACCOUNT_MAX_FAILURES) {
      // Held by attempts still being checked: the limit may lift as soon as one of them answers.
      return { throttled: { reason: 'account', retryAfterSeconds: byEmail.length >= ACCOUNT_MAX_FAILURES ? retryAfter(byEmail, ACCOUNT_MAX_FAILURES, now) : 1 } };
    }
    if (ip !== null) {
      const byIp = await tx.all<{ at_ms: number }>('SELECT at_ms FROM login_failures WHERE ip = ? AND at_ms > ? ORDER BY at_ms ASC', [ip, now - LOGIN_WINDOW_MS]);
      if (byIp.length >= ADDRESS_MAX_FAILURES) return { throttled: { reason: 'address', retryAfterSeconds: retryAfter(byIp, ADDRESS_MAX_FAILURES, now) } };
    }
    await tx.run('INSERT INTO login_reservations (id, email, until_ms) VALUES (?, ?, ?)', [reservation, email, now + LOGIN_RESERVATION_MS]);
    return { reservation };
  }, txOptions);
}

const THROTTLE_MESSAGES: Record<ThrottleReason, string | undefined> = {
  account: undefined,
  address: 'Too many failed sign-in attempts from this address. Wait before retrying.',
  concurrent: 'Another sign-in from this address is still being checked. Retry in a moment.',
};

/**
 * Checks an email and password, throttled and audited. Resolves to the user on success (the caller opens its
 * session and audits the success in the same commit); throws INVALID_CREDENTIALS or TOO_MANY_LOGIN_ATTEMPTS.
 */
export async function checkPassword(deps: CoreDeps, email: string, password: string, from: AttemptSource): Promise<UserRow> {
  const normalized = email.trim().toLowerCase();
  const ip = from.ip;
  // The per-address limits count this (an IPv6 client's /64); the audit entries keep the address itself.
  const addr = throttleAddress(ip);
  // The per-address in-flight limit is checked and taken in one step, before anything waits on the store, so a
  // burst of concurrent attempts cannot all pass it. Counted in flight from here until the attempt is recorded.
  const flying = inFlight(deps.sql);
  let throttled: Throttle | null = addr !== null && (flying.get(addr) ?? 0) >= ADDRESS_MAX_CONCURRENT ? { reason: 'concurrent', retryAfterSeconds: 1 } : null;
  let counted = false;
  // This attempt's row of login_reservations while it is held (null once settled, or never taken).
  let reservation: string | null = null;
  let user: UserRow | undefined;
  let ok = false;
  let who: AuditWho;
  try {
    if (!throttled && addr !== null) {
      bump(flying, addr, 1);
      counted = true;
    }
    // Sign-in attempts are audited under the account's organization (an unknown email: the installation's first),
    // with the email that tried — never the password (docs/audit.md). Taken now, in the request's context.
    who = await currentActor(deps.sql);
    if (!throttled) {
      const r = await reserve(deps, normalized, addr);
      if ('throttled' in r) throttled = r.throttled;
      else reservation = r.reservation;
    }
    if (!throttled) {
      const row = await deps.sql.get<UserRow & { deactivated_at: string | null }>(
        'SELECT id, organization_id, email, password_hash, role, deactivated_at FROM users WHERE email = ?',
        [normalized],
      );
      user = row ? { id: row.id, organization_id: row.organization_id, email: row.email, password_hash: row.password_hash, role: row.role } : undefined;
      const deactivated = row?.deactivated_at != null;
      // An unknown email, a wrong password and a deactivated account take the same path and the same time: a
      // deactivated user's stored hash is kept behind a prefix that verifyPassword() would refuse without hashing,
      // so it is checked against the dummy hash too (and never matches). Hashed before the transaction below.
      const stored = user && !deactivated ? user.password_hash : await dummyPasswordHash(deps.config.scryptN);
      ok = (await verifyPassword(password, stored)) && !deactivated;
      if (!user || !ok) {
        const org = user?.organization_id ?? (await firstOrganizationId(deps));
        const at = deps.clock.now();
        const actor = { type: 'user' as const, id: user?.id ?? null, label: normalized };
        const failed = { action: 'auth.login_failed', target: { type: 'user', id: user?.id ?? null }, detail: { email: normalized, ip, reason: !user ? 'unknown email' : deactivated ? 'deactivated user' : 'wrong password' }, actor };
        // In the group commit: a flood of failed logins must not put one fsync each on the event loop. The failure
        // and its audit entry share the transaction (docs/audit.md).
        // The reservation becomes the failure in the same commit: the attempt is counted once throughout.
        await deps.sql.transaction(async (tx) => {
          await tx.run('DELETE FROM login_reservations WHERE id = ?', [reservation]);
          await tx.run('INSERT INTO login_failures (email, at_ms, ip) VALUES (?, ?, ?)', [normalized, at, addr]);
          if (org) await appendAudit({ ...deps, sql: tx }, org, failed, who);
        });
        reservation = null;
      }
    }
  } finally {
    if (counted && addr !== null) bump(flying, addr, -1);
    // A success (the caller records it and forgets the account's failures), or an error on the way: the attempt no
    // longer counts. Should this fail too, the reservation lapses after LOGIN_RESERVATION_MS.
    if (reservation !== null) {
      const id = reservation;
      await deps.sql.transaction((tx) => tx.run('DELETE FROM login_reservations WHERE id = ?', [id])).catch((err: unknown) => {
        deps.log.warn({ err: (err as Error).message }, 'could not release a sign-in reservation; it lapses by itself');
      });
    }
  }
  if (throttled) {
    const found = await deps.sql.get<{ id: string; organization_id: string }>('SELECT id, organization_id FROM users WHERE email = ?', [normalized]);
    const org = found?.organization_id ?? (await firstOrganizationId(deps));
    if (org) {
      const entry = {
        action: 'auth.login_throttled',
        target: { type: 'user', id: found?.id ?? null },
        detail: { email: normalized, ip, reason: throttled.reason, retryAfterSeconds: throttled.retryAfterSeconds },
        actor: { type: 'user' as const, id: found?.id ?? null, label: normalized },
      };
      await deps.sql.transaction(async (tx) => {
        await appendAudit({ ...deps, sql: tx }, org, entry, who);
      });
    }
    const message = THROTTLE_MESSAGES[throttled.reason];
    throw new AppError('TOO_MANY_LOGIN_ATTEMPTS', { retryAfterSeconds: throttled.retryAfterSeconds, ...(message ? { message } : {}) });
  }
  if (!user || !ok) throw new AppError('INVALID_CREDENTIALS');
  return user;
}

/**
 * A successful sign-in's writes, the same on both doors and inside the caller's transaction: the account's failures
 * are forgotten, a session row opens, and `auth.login_succeeded` is audited (with `detail` beside the email).
 */
export async function recordSignIn(
  deps: CoreDeps,
  user: UserRow,
  session: { id: string; createdAtMs: number; expiresAtMs: number },
  detail: Record<string, unknown>,
  who?: AuditWho,
): Promise<void> {
  await deps.sql.run('DELETE FROM login_failures WHERE email = ?', [user.email]);
  await deps.sql.run('INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [session.id, user.id, iso(session.createdAtMs), iso(session.expiresAtMs)]);
  await appendAudit(
    deps,
    user.organization_id,
    {
      action: 'auth.login_succeeded',
      target: { type: 'session', id: session.id },
      detail: { email: user.email, ...detail },
      actor: { type: 'user', id: user.id, label: user.email },
    },
    who ?? (await currentActor(deps.sql)),
  );
}
