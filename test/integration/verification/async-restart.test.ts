// An accepted async verification survives the process that accepted it: the pending record and its queue job
// are committed together, and the next service on the same data folder completes it and writes its event.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { runIdempotent, fingerprint } from '../../../src-main/core/idempotency/idempotency';
import { submit } from '../../../src-main/core/verification/verification-service';
import { createCore, startService, type RunningService } from '../../../src-main/service';
import { testStore } from '../../helpers/harness';

let service: RunningService | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
});

describe('async verification across a restart', () => {
  it('completes after restart what was accepted before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-async-'));
    // A process that accepts but never runs its queue (as if killed right after answering 202).
    const store = await testStore(dataDir);
    const first = await createCore({ dataDir, ...store, logLevel: 'silent', scryptN: 1024, startWorker: false });
    const org = await bootstrap(first.deps, { email: 'async@restart.test', password: 'restart-password' });
    const p = { kind: 'apiKey' as const, organizationId: org.organizationId, environment: 'sandbox' as const, role: 'DEVELOPER' as const };
    const body = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' as const };
    const res = await runIdempotent(first.deps, `${p.organizationId}:sandbox`, 'restart-1', fingerprint('POST', '/verify/account', body), async () => {
      const s = await submit(first.rt.verification, p, 'account', body);
      return { statusCode: s.statusCode, body: s.body, persist: s.persist, ...(s.afterCommit ? { afterCommit: s.afterCommit } : {}) };
    });
    expect(res.statusCode).toBe(202);
    const id = (JSON.parse(res.body) as { id: string }).id;
    await first.close();

    service = await startService({ dataDir, ...store, port: 0, logLevel: 'silent', scryptN: 1024 });
    await service.worker.drain();
    const r = await fetch(`${service.url}/api/v1/verify/${id}`, { headers: { 'X-API-Key': org.keys.sandbox.key } });
    const rec = (await r.json()) as { status: string; accountName?: string };
    expect(rec.status).toBe('success');
    expect(rec.accountName).toBe('ADAEZE OKAFOR');
    const events = await service.deps.sql.all<{ event_type: string }>('SELECT event_type FROM outbox_events WHERE verification_id = ?', [id]);
    expect(events).toEqual([{ event_type: 'verification.completed' }]);
  });
});
