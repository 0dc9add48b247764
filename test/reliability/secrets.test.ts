// Secrets at rest (issue 9 item 5): after a representative run of the real `vconsole serve` process (info logs
// captured), neither its SQLite files nor its logs hold a raw API key, password, refresh or access token,
// provider credential or webhook signing secret (sealed with the data folder's key). Plus a code-level check that
// secret comparisons are constant-time.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, NG_OK, newKey, TEST_PASSWORD } from '../helpers/harness';
import { DB_FILE, killChild, openReadOnly, prepareDataDir, removeDataDirs, ROOT, serveEntry, startChild, stopChild, until, type ChildService } from './child-service';

let child: ChildService | null = null;
let receiver: Server | null = null;
afterAll(async () => {
  if (child) await killChild(child);
  receiver?.close();
  removeDataDirs();
});

function fileBytes(dataDir: string): Buffer {
  const parts = [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`].map((f) => join(dataDir, f)).filter((p) => existsSync(p));
  return Buffer.concat(parts.map((p) => readFileSync(p)));
}

/** The value and its random part (a store could keep the part without its prefix). */
function forms(value: string): string[] {
  const tail = value.replace(/^(svc_(sandbox|live)_|rt_|whsec_)/, '');
  return tail.length >= 16 && tail !== value ? [value, tail] : [value];
}

function foundIn(haystack: Buffer, values: string[]): string[] {
  return values.filter((v) => forms(v).some((f) => haystack.includes(Buffer.from(f, 'utf8'))));
}

describe('secrets at rest and in logs', () => {
  it('no raw API key, password, token, provider or webhook secret in the store files or the info logs', async () => {
    const prep = await prepareDataDir();
    const secrets = {
      apiKeys: [prep.sandboxKey, prep.liveKey],
      passwords: [TEST_PASSWORD],
      refreshTokens: [] as string[],
      accessTokens: [] as string[],
      providerSecrets: [] as string[],
      webhookSecrets: [] as string[],
    };

    // A live provider credential, set the way an operator does (env var, never argv): it must be stored sealed.
    const providerSecret = `prov-${randomBytes(24).toString('hex')}`;
    const set = spawnSync(
      process.execPath,
      [...serveEntry().args, 'providers', 'set', 'upstream-rel', '--adapter', 'generic', '--base-url', 'https://upstream.example.com', '--route', 'account:GH', '--secret-env', 'VC_REL_PROVIDER_SECRET', '--data-dir', prep.dataDir],
      { cwd: ROOT, env: { ...process.env, VC_REL_PROVIDER_SECRET: providerSecret }, encoding: 'utf8' },
    );
    const cliOutput = `${set.stdout}${set.stderr}`;
    expect(set.status, cliOutput).toBe(0);
    secrets.providerSecrets.push(providerSecret);

    let hits = 0;
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits += 1;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', () => r()));
    const rport = (receiver.address() as AddressInfo).port;
    child = await startChild(prep.dataDir, { env: { LOG_LEVEL: 'info' }, args: ['--allow-webhook-host', `127.0.0.1:${rport}`, '--retry-unit-ms', '20'] });
    const base = child.url;

    // Sign-in, a wrong password, refresh with rotation, reuse of a spent refresh token.
    const wrongPassword = `wrong-${randomBytes(12).toString('hex')}`;
    secrets.passwords.push(wrongPassword);
    expect((await api(base, 'POST', '/auth/login', { body: { email: prep.email, password: wrongPassword } })).status).toBe(401);
    const l1 = await api(base, 'POST', '/auth/login', { body: { email: prep.email, password: TEST_PASSWORD } });
    expect(l1.status).toBe(200);
    secrets.accessTokens.push(l1.body.accessToken);
    secrets.refreshTokens.push(l1.body.refreshToken);
    const r1 = await api(base, 'POST', '/auth/refresh', { body: { refreshToken: l1.body.refreshToken } });
    expect(r1.status).toBe(200);
    secrets.accessTokens.push(r1.body.accessToken);
    secrets.refreshTokens.push(r1.body.refreshToken);
    expect((await api(base, 'POST', '/auth/refresh', { body: { refreshToken: l1.body.refreshToken } })).status).toBe(401);
    const l2 = await api(base, 'POST', '/auth/login', { body: { email: prep.email, password: TEST_PASSWORD } });
    const token = l2.body.accessToken as string;
    secrets.accessTokens.push(token);
    secrets.refreshTokens.push(l2.body.refreshToken);

    // Keys: created, used, revoked, used after revocation; an unknown well-formed key.
    const made: { id: string; key: string }[] = [];
    for (const environment of ['sandbox', 'live', 'sandbox'] as const) {
      const k = await api(base, 'POST', '/client/api-keys', { token, body: { name: `secrets-${environment}`, environment } });
      expect(k.status).toBe(201);
      made.push({ id: k.body.id, key: k.body.key });
      secrets.apiKeys.push(k.body.key);
    }
    const bogus = `svc_sandbox_${randomBytes(32).toString('hex')}`;
    secrets.apiKeys.push(bogus);

    // Webhooks in both environments, one rotated (old and new secret both kept for 24 h).
    for (const key of [made[0]!.key, made[1]!.key]) {
      const w = await api(base, 'POST', '/client/webhooks', { key, body: { url: `http://127.0.0.1:${rport}/hook`, events: ['verification.completed', 'verification.failed'] } });
      expect(w.status, w.text).toBe(201);
      secrets.webhookSecrets.push(w.body.secret);
      const rot = await api(base, 'PATCH', `/client/webhooks/${w.body.id}`, { key, body: { rotateSecret: true } });
      expect(rot.status, rot.text).toBe(200);
      secrets.webhookSecrets.push(rot.body.secret);
    }

    for (const [key, body] of [
      [made[0]!.key, NG_OK],
      [made[0]!.key, { ...NG_OK, mode: 'async' }],
      [made[1]!.key, NG_OK],
      [made[1]!.key, { ...NG_OK, mode: 'async' }],
      [prep.sandboxKey, { ...NG_OK, accountNumber: '0999999995', mode: 'async' }],
    ] as const) {
      const r = await api(base, 'POST', '/verify/account', { key, idem: newKey(), body });
      expect([200, 202]).toContain(r.status);
    }
    expect((await api(base, 'DELETE', `/client/api-keys/${made[2]!.id}`, { token })).status).toBe(200);
    expect((await api(base, 'POST', '/verify/account', { key: made[2]!.key, idem: newKey(), body: NG_OK })).status).toBe(401);
    expect((await api(base, 'POST', '/verify/account', { key: bogus, idem: newKey(), body: NG_OK })).status).toBe(401);
    expect((await api(base, 'POST', '/auth/logout', { token })).status).toBeLessThan(300);
    await until(() => hits >= 3, 20_000, () => `webhook deliveries received: ${hits}`);

    // The files while the service runs (WAL not yet checkpointed), then after a graceful stop.
    const running = fileBytes(prep.dataDir);
    await stopChild(child);
    const logs = Buffer.from(child.output() + cliOutput, 'utf8');
    child = null;
    const stopped = fileBytes(prep.dataDir);
    // The audit trail's exports (issue 15) are read by people outside the store: no secret may reach them either.
    const exports: string[] = [];
    for (const format of ['json', 'csv']) {
      const x = spawnSync(process.execPath, [...serveEntry().args, 'audit', 'export', '--format', format, '--data-dir', prep.dataDir], { cwd: ROOT, encoding: 'utf8' });
      expect(x.status, x.stderr).toBe(0);
      exports.push(x.stdout);
    }
    expect(exports[0]).toContain('"action": "key.revoked"');
    const store = Buffer.concat([running, stopped, Buffer.from(exports.join('\n'), 'utf8')]);

    const report: Record<string, { values: number; inStore: number; inLogs: number }> = {};
    for (const [name, values] of Object.entries(secrets)) {
      report[name] = { values: values.length, inStore: foundIn(store, values).length, inLogs: foundIn(logs, values).length };
    }
    expect(logs.length).toBeGreaterThan(1000); // the info logs really were captured
    for (const name of ['apiKeys', 'passwords', 'refreshTokens', 'accessTokens', 'providerSecrets', 'webhookSecrets'] as const) {
      expect({ name, inStore: foundIn(store, secrets[name]), inLogs: foundIn(logs, secrets[name]) }).toEqual({ name, inStore: [], inLogs: [] });
    }
    // Webhook secrets sign every delivery, so the service reads them back: webhooks.secret / previous_secret hold
    // them sealed (`gcm1:`, AES-256-GCM with <dataDir>/secret.key), and no column of any table carries one in
    // plain text — the byte search above covers every page; this names the column if one ever does.
    expect(foundIn(logs, secrets.webhookSecrets)).toEqual([]);
    const db = openReadOnly(prep.dataDir);
    const elsewhere: string[] = [];
    try {
      const stored = db.prepare('SELECT secret, previous_secret FROM webhooks').all() as { secret: string; previous_secret: string | null }[];
      expect(stored).toHaveLength(2);
      for (const r of stored) {
        expect(r.secret).toMatch(/^gcm1:/);
        expect(r.previous_secret).toMatch(/^gcm1:/);
      }
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((t) => t.name);
      for (const t of tables) {
        const cols = (db.prepare(`PRAGMA table_info("${t}")`).all() as { name: string; type: string }[]).filter((c) => /TEXT|BLOB|^$/i.test(c.type));
        for (const c of cols) {
          for (const s of secrets.webhookSecrets) {
            for (const f of forms(s)) {
              const n = (db.prepare(`SELECT count(*) AS n FROM "${t}" WHERE instr(CAST("${c.name}" AS TEXT), ?) > 0`).get(f) as { n: number }).n;
              if (n > 0) elsewhere.push(`${t}.${c.name}`);
            }
          }
        }
      }
    } finally {
      db.close();
    }
    expect(elsewhere).toEqual([]);
    console.log(
      `secrets: store bytes=${store.length} log bytes=${logs.length} deliveries received=${hits} ` +
        Object.entries(report)
          .map(([k, v]) => `${k}=${v.values} (store ${v.inStore}, logs ${v.inLogs})`)
          .join('; '),
    );
  });
});

// The comparison helpers, named: each must reach crypto.timingSafeEqual (or a verify that is constant-time).
const SRC = join(ROOT, 'src-main');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
function body(source: string, name: string): string {
  const start = source.search(new RegExp(`function ${name}\\b`));
  expect(start, `function ${name}`).toBeGreaterThanOrEqual(0);
  // Up to the next top-level function: enough to read the helper's own body.
  const rest = source.slice(start + 1);
  const next = rest.search(/\n(export )?(async )?function /);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('constant-time comparison of secrets', () => {
  it('passwords: the scrypt output is compared with timingSafeEqual', () => {
    expect(body(read('src-main/core/auth/passwords.ts'), 'verifyPassword')).toMatch(/timingSafeEqual\(key, expected\)/);
  });

  it('webhook signatures (X-Signature and Standard Webhooks) are checked through timingSafeEqual, every candidate', () => {
    const src = read('src-main/core/webhooks/signing.ts');
    expect(body(src, 'safeEqual')).toMatch(/timingSafeEqual\(/);
    expect(body(src, 'verifyXSignature')).toMatch(/safeEqual\(/);
    const std = body(src, 'verifyStandardWebhook');
    expect(std).toMatch(/safeEqual\(expected, candidate\)/);
    expect(std).not.toMatch(/\bbreak\b|return true/);
  });

  it('the console bridge compares its one-time tokens and session ids with timingSafeEqual, never a Set lookup', () => {
    const src = read('src-main/console/web-bridge.ts');
    expect(body(src, 'safeEqual')).toMatch(/timingSafeEqual\(/);
    expect(src).not.toMatch(/(tokens|sessions)\.has\(/);
  });

  it('API keys and refresh tokens are never compared: only their SHA-256 digest is looked up', () => {
    const keys = body(read('src-main/core/keys/keys-service.ts'), 'authenticateApiKey');
    expect(keys).toMatch(/sha256Hex\(raw\)/);
    expect(keys).toMatch(/WHERE key_hash = \?/);
    const refresh = body(read('src-main/core/auth/sessions.ts'), 'refresh');
    expect(refresh).toMatch(/WHERE r\.token_hash = \?/);
    expect(refresh).toMatch(/sha256Hex\(refreshToken\)/);
  });

  it('access tokens are verified by synchronous HMAC compared with timingSafeEqual, algorithm pinned before the signature', () => {
    // Issue 16: node:crypto HMAC on the calling thread (jose's WebCrypto verify queued behind password hashes).
    const verify = body(read('src-main/core/auth/tokens.ts'), 'verifyAccessTokenSync');
    expect(verify).toMatch(/header\['alg'\] !== 'HS256'/);
    expect(verify).toMatch(/createHmac\('sha256'/);
    expect(verify).toMatch(/timingSafeEqual\(given, expected\)/);
    expect(verify.indexOf("header['alg'] !== 'HS256'")).toBeLessThan(verify.indexOf('timingSafeEqual('));
  });

  it('no === / !== on a hash, secret, signature, token or password anywhere in src-main (reviewed exceptions listed)', () => {
    // Not secrets: a migration's checksum, and the CSV batch's duplicate-row fingerprint.
    // Both csv-batch entries compare the CSV verdict cache's row fingerprints (not secrets); database.ts compares a
    // migration's checksum.
    const reviewed = new Set([
      'store/database.ts: migrationHash(m) !== row.hash',
      // A restore's check that a file records this app's migrations (their checksums, not secrets).
      'core/backups/backups.ts: migrationHash(m) !== row.hash',
      // The PostgreSQL engine's migration checksum (the same rule as SQLite's).
      'store/pg/migrate.ts: pgMigrationHash(m) !== row.hash',
      'core/routing/csv-batch.ts: 2] !== hash',
      'core/routing/csv-batch.ts: this.hashes[i] === hash',
      // The audit chain's hashes are public (they are exported for anyone to verify): no secret to time.
      'core/audit/audit-log.ts: e.prevHash !== prev.hash',
      'core/audit/audit-log.ts: entryHash(rest) !== hash',
      'core/audit/audit-log.ts: r.head.hash !== x.head.hash',
      // Where a chain starts (docs/audit.md): the genesis and a checkpoint's hash, public values of the chain.
      'core/audit/audit-log.ts: start.hash === GENESIS_HASH',
      'core/audit/audit-log.ts: hash !== start.hash',
      'core/audit/audit-log.ts: entry.prevHash === GENESIS_HASH',
    ]);
    const clean = (x: string) => x.replace(/^[(!]+/, '');
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e)) files.push(p);
      }
    };
    walk(SRC);
    const secretish = /^[!(]*[\w.[\]]*?(hash|secret|signature|token|password|sig|mac)\]?\)*$/i;
    const literal = /^[!(]*('.*'|".*"|`.*`|\d+|null|undefined|true|false)[),;]*$/;
    const found: string[] = [];
    for (const f of files) {
      const lines = readFileSync(f, 'utf8').split('\n');
      for (const line of lines) {
        const code = line.replace(/\/\/.*$/, '');
        for (const m of code.matchAll(/([^\s&|?:]+)\s*(===|!==)\s*([^\s&|?:;,)]+)/g)) {
          const [, a, op, b] = m as unknown as [string, string, string, string];
          const left = a.replace(/^.*\(/, '');
          if (code.includes('typeof ') || literal.test(left) || literal.test(b)) continue;
          if (/\.(length|changes|size|status|state|kind|mode)$/.test(left) || /\.(length|changes|size)$/.test(b)) continue;
          if (secretish.test(left) || secretish.test(b)) found.push(`${relative(SRC, f)}: ${clean(a)} ${op} ${b}`);
        }
      }
    }
    console.log(`constant-time scan: ${files.length} files, ${found.length} comparisons flagged, all reviewed: ${found.join(" / ")}`);
    expect(found.filter((x) => !reviewed.has(x))).toEqual([]);
  });
});
