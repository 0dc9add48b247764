// The CPU cuts of issue 16 item 2 must not change an answer: the canonical JSON of a fingerprint, the ids, the times, the
// API-key cache (revocation stays immediate, from this process or another), the key name recorded as provenance,
// the opened webhook secrets, the job completion that rides the result's write, and the async completion that
// reuses the record it read only while the stored text is unchanged.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src-main/core/context';
import { iso } from '../../../src-main/core/clock';
import { canonicalJson } from '../../../src-main/core/idempotency/idempotency';
import { newId } from '../../../src-main/core/ids';
import { authenticateApiKey, insertKey, revokeKey } from '../../../src-main/core/keys/keys-service';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { processVerification, type VerificationRuntime } from '../../../src-main/core/verification/engine';
import { submitOnce } from '../../../src-main/core/verification/verification-service';
import type { ProviderAnswer } from '../../../src-main/core/verification/types';
import { openWebhookSecret, sealWebhookSecret } from '../../../src-main/core/webhooks/secret-sealing';
import { enqueue } from '../../../src-main/jobs/queue';
import { JobWorker } from '../../../src-main/jobs/worker';
import { createCore, type Core } from '../../../src-main/service';

/** The canonical JSON as first written (arrays and filters), kept as the reference for the concatenating one. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  return `{${keys
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference((value as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

describe('canonicalJson', () => {
  it('equals the reference on any JSON value, with undefined members and holes, whatever the key order', () => {
    const withUndefined = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.constant(undefined),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(withUndefined, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: undefined }] })).toBe(canonicalJson({ a: [2, { c: undefined, d: 3 }], b: 1 }));
  });
});

describe('iso', () => {
  it('formats every time as Date does, repeated or not, and refuses an invalid one', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { maxLength: 20 }), (times) => {
        for (const ms of [...times, ...times.slice().reverse(), ...times]) expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
    );
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(iso(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('newId', () => {
  it('is the prefix and 24 hex characters, never repeats, and ids made one after another sort in order of time', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('ver'));
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^ver_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => id.slice(4, 16));
    expect([...times].sort()).toEqual(times);
    // Within a millisecond too: ids sort in the order they were made (PostgreSQL's tie-break, store/pg/dialect.ts).
    expect([...ids].sort()).toEqual(ids);
    const sessions = Array.from({ length: 1000 }, () => newId('ses'));
    for (const id of sessions.slice(0, 50)) expect(id).toMatch(/^ses_[0-9a-f]{24}$/);
    expect(new Set(sessions).size).toBe(sessions.length);
  });
});

const SYNC_NG: object = { country: 'NG', accountNumber: '0123456789', bankCode: '058' };
const ASYNC_NG: { mode: 'async' } = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } as { mode: 'async' };

describe('with a store', () => {
  let dir: string;
  let core: Core;
  let org: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vc-cuts-'));
    core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
    org = (await bootstrap(core.deps, { email: 'owner@example.com', password: 'a-long-password' })).organizationId;
  });

  afterEach(async () => {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a cached API key is refused at once after a revocation here or by another connection; the principal carries its name', async () => {
    const a = await insertKey(core.deps, org, 'first key', 'sandbox');
    const b = await insertKey(core.deps, org, 'second key', 'sandbox');
    const p = await authenticateApiKey(core.deps, a.key);
    expect([p.keyId, p.keyName]).toEqual([a.id, 'first key']);
    await authenticateApiKey(core.deps, b.key);
    await revokeKey(core.deps, org, a.id);
    await expect(authenticateApiKey(core.deps, a.key)).rejects.toThrow(expect.objectContaining({ code: 'API_KEY_REVOKED' }));
    // Another process (the CLI) revokes b: the next lookup here must not trust the cache.
    const other = new Database(join(dir, 'verification-console.sqlite'));
    other.pragma('busy_timeout = 5000');
    other.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?").run(new Date().toISOString(), b.id);
    other.close();
    await expect(authenticateApiKey(core.deps, b.key)).rejects.toThrow(expect.objectContaining({ code: 'API_KEY_REVOKED' }));
  });

  it('records the key name as the actor of a check', async () => {
    const k = await insertKey(core.deps, org, 'named key', 'sandbox');
    const p = await authenticateApiKey(core.deps, k.key);
    const res = await submitOnce(core.rt.verification, p, 'account', SYNC_NG);
    const id = (JSON.parse(res.body) as { id: string }).id;
    expect(core.deps.db!.prepare('SELECT actor_id, actor_label FROM verifications WHERE id = ?').get(id)).toEqual({ actor_id: k.id, actor_label: 'named key' });
    // The answer sent is the record stored.
    expect(res.body).toBe(core.deps.db!.prepare('SELECT result FROM verifications WHERE id = ?').pluck().get(id));
  });

  it('an opened webhook secret is the value sealed, per sealed value (a rotation opens the new one)', () => {
    const first = sealWebhookSecret(core.deps, 'whsec_first');
    const second = sealWebhookSecret(core.deps, 'whsec_second');
    expect(openWebhookSecret(core.deps, first)).toBe('whsec_first');
    expect(openWebhookSecret(core.deps, second)).toBe('whsec_second');
    expect(openWebhookSecret(core.deps, first)).toBe('whsec_first');
    expect(openWebhookSecret(core.deps, 'whsec_plain_legacy')).toBe('whsec_plain_legacy');
  });

  it('a verification job is completed in the write that stores its result', async () => {
    const k = await insertKey(core.deps, org, 'k', 'sandbox');
    const p = await authenticateApiKey(core.deps, k.key);
    const res = await submitOnce(core.rt.verification, p, 'account', ASYNC_NG);
    const id = (JSON.parse(res.body) as { id: string }).id;
    const seen: { status: string; job: string }[] = [];
    const worker = new JobWorker({
      sql: core.deps.sql,
      clock: core.deps.clock,
      log: core.deps.log,
      handlers: {
        'verification.process': (job) =>
          processVerification(core.rt.verification, id, (write) =>
            job.completeWith!(async (tx) => {
              await write(tx);
              seen.push({
                status: (await tx.get<{ status: string }>('SELECT status FROM verifications WHERE id = ?', [id]))!.status,
                job: (await tx.get<{ state: string }>('SELECT state FROM jobs WHERE id = ?', [`job_${id}`]))!.state,
              });
            }),
          ),
      },
    });
    worker.start();
    await worker.drain();
    await worker.stop();
    // Inside the write: the result is stored and the job still leased; completed by the same transaction after it.
    expect(seen).toEqual([{ status: 'success', job: 'leased' }]);
    expect(core.deps.db!.prepare('SELECT state, lease_token FROM jobs WHERE id = ?').get(`job_${id}`)).toEqual({ state: 'done', lease_token: null });
  });

  it('a job whose write fails stays leased to be retried, and one whose lease was lost is not completed', async () => {
    const now = core.deps.clock.now();
    await enqueue(core.deps.sql, now, 'k.fail', {}, { id: 'job_fail' });
    await enqueue(core.deps.sql, now, 'k.stale', {}, { id: 'job_stale' });
    const warnings: string[] = [];
    const log: Logger = { info: () => undefined, debug: () => undefined, error: () => undefined, warn: (_o, m) => void warnings.push(String(m)) };
    const worker = new JobWorker({
      sql: core.deps.sql,
      clock: core.deps.clock,
      log,
      retryDelayMs: () => 3_600_000,
      handlers: {
        'k.fail': (job) =>
          core.deps.sql.transaction(
            job.completeWith!(() => {
              throw new Error('the write failed');
            }),
          ),
        // Another holder takes the lease over before this write completes the job.
        'k.stale': (job) =>
          core.deps.sql.transaction(
            job.completeWith!(async (tx) => {
              await tx.run("UPDATE jobs SET lease_token = 'someone-else' WHERE id = ?", [job.id]);
            }),
          ),
      },
    });
    worker.start();
    await worker.drain();
    await worker.stop();
    expect(core.deps.db!.prepare('SELECT state, attempts, last_error FROM jobs WHERE id = ?').get('job_fail')).toEqual({
      state: 'queued',
      attempts: 1,
      last_error: 'the write failed',
    });
    expect(core.deps.db!.prepare('SELECT state, lease_token FROM jobs WHERE id = ?').get('job_stale')).toEqual({ state: 'leased', lease_token: 'someone-else' });
    expect(warnings).toContain('job completion refused: lease lost');
  });

  it('an async completion re-reads the record when its stored text changed while the provider answered', async () => {
    const k = await insertKey(core.deps, org, 'k', 'sandbox');
    const p = await authenticateApiKey(core.deps, k.key);
    const res = await submitOnce(core.rt.verification, p, 'account', ASYNC_NG);
    const id = (JSON.parse(res.body) as { id: string }).id;
    let answer!: (a: ProviderAnswer) => void;
    const slow: VerificationRuntime = {
      ...core.rt.verification,
      providers: { ask: () => new Promise<ProviderAnswer>((r) => (answer = r)) },
    };
    const late = processVerification(slow, id);
    await new Promise((r) => setTimeout(r, 10));
    // Meanwhile another run completes it (at-least-once queue): one result, one event.
    await processVerification(core.rt.verification, id);
    const stored = core.deps.db!.prepare('SELECT result FROM verifications WHERE id = ?').pluck().get(id) as string;
    answer({ outcome: 'error', errorCode: 'VERIFICATION_ERROR' });
    await late;
    expect(core.deps.db!.prepare('SELECT result FROM verifications WHERE id = ?').pluck().get(id)).toBe(stored);
    expect((JSON.parse(stored) as { status: string }).status).toBe('success');
    expect(core.deps.db!.prepare('SELECT count(*) FROM outbox_events WHERE verification_id = ?').pluck().get(id)).toBe(1);
    // The event carries exactly the stored record.
    const payload = JSON.parse(core.deps.db!.prepare('SELECT payload FROM outbox_events WHERE verification_id = ?').pluck().get(id) as string) as { data: unknown };
    expect(payload.data).toEqual(JSON.parse(stored));
  });
});
