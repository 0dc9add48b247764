// Diagnostic (docs/performance.md, "Claims that do not read a backlog"): what the webhook dispatcher's claims and
// its next due time cost the event loop when one webhook has a long backlog of pending deliveries, on a real SQLite
// store with the real schema. Two cases: the backlog due now with its webhook at its per-endpoint limit (an endpoint
// that is slow or at its limit during a big batch), and the backlog scheduled for later (an endpoint that is down:
// every delivery waiting for its retry). A second webhook with a few due deliveries is what the claims look for.
// Usage: npx tsx bench/lib/claim-backlog.ts [--rows 50000] [--repeat 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { claimDueAttempts, nextDueAt } from '../../src-main/core/webhooks/deliveries';
import { createCore } from '../../src-main/service';
import { arg } from './harness';

const rows = arg('--rows', 50_000);
const repeat = arg('--repeat', 20);
const dir = mkdtempSync(join(tmpdir(), 'vc-claims-'));
const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
try {
  const org = await bootstrap(core.deps, { email: 'claims@example.com', password: 'correct horse battery staple' });
  const now = core.deps.clock.now();
  const at = new Date(now).toISOString();
  const payload = JSON.stringify({ data: 'x'.repeat(1200) });
  await core.deps.sql.transaction(async (tx) => {
    for (const id of ['whk_backlog', 'whk_other']) {
      await tx.run(
        `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at, secret_prefix)
         VALUES (?, ?, 'sandbox', 'http://127.0.0.1:9/hook', '["verification.completed"]', 'active', 'x', 0, ?, ?, 'x')`,
        [id, org.organizationId, at, at],
      );
    }
  });
  // The backlog in rounds of 5,000 (a transaction each), then three due deliveries of the other webhook.
  for (let i = 0; i < rows; i += 5_000) {
    await core.deps.sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(rows, i + 5_000); j++) {
        await tx.run(
          `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, attempts,
             next_attempt_at_ms, created_at_ms, created_at, updated_at) VALUES (?, 'whk_backlog', ?, 'sandbox', ?, 'verification.completed', ?, ?, 'pending', 0, ?, ?, ?, ?)`,
          [`del_b${j}`, org.organizationId, `evt_b${j}`, `ver_b${j}`, payload, now - rows + j - 10_000, now, at, at],
        );
      }
    });
  }
  await core.deps.sql.transaction(async (tx) => {
    for (let j = 0; j < 3; j++) {
      await tx.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, attempts,
           next_attempt_at_ms, created_at_ms, created_at, updated_at) VALUES (?, 'whk_other', ?, 'sandbox', ?, 'verification.completed', ?, ?, 'pending', 0, ?, ?, ?, ?)`,
        [`del_o${j}`, org.organizationId, `evt_o${j}`, `ver_o${j}`, payload, now - 1_000 + j, now, at, at],
      );
    }
  });
  // Each claim leases what it takes; the leases are dropped again after it (not timed), so every round finds the same store.
  const unlease = () => core.deps.sql.transaction((tx) => tx.run('UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE lease_until_ms IS NOT NULL'));
  let claimed = 0;
  const ms = async (f: () => Promise<unknown>) => {
    let total = 0n;
    for (let i = 0; i <= repeat; i++) {
      const t0 = process.hrtime.bigint();
      const out = await f();
      if (i > 0) total += process.hrtime.bigint() - t0; // the first round warms the statements up
      if (Array.isArray(out)) claimed = out.length;
      await unlease();
    }
    return (Number(total) / 1e6 / repeat).toFixed(2);
  };
  const results: Record<string, string> = {};
  results[`claim of 64, the backlog's webhook at its limit (${rows} due)`] = await ms(() => claimDueAttempts(core.deps, 64, { perEndpoint: 48, held: new Map([['whk_backlog', 48]]) }));
  results['  deliveries it claimed (the other webhook\'s 3)'] = String(claimed);
  results["claim of one webhook's deliveries (the backlog's, 8)"] = await ms(() => claimDueAttempts(core.deps, 8, { perEndpoint: 48, held: new Map([['whk_backlog', 40]]), only: 'whk_backlog' }));
  results['next due time, the backlog passed over'] = await ms(() => nextDueAt(core.deps, ['whk_backlog']));
  // The endpoint is down: every delivery of the backlog waits for a retry an hour from now.
  await core.deps.sql.transaction((tx) => tx.run(`UPDATE webhook_deliveries SET next_attempt_at_ms = next_attempt_at_ms + 3600000 + ? WHERE webhook_id = 'whk_backlog'`, [rows]));
  results[`next due time, ${rows} retries later, none capped`] = await ms(() => nextDueAt(core.deps));
  results['claim of 64, nothing of the backlog due'] = await ms(() => claimDueAttempts(core.deps, 64, { perEndpoint: 48, held: new Map() }));
  results['  deliveries it claimed (the other webhook\'s 3)'] += ` / ${claimed}`;
  // Many webhooks: 1,000 more, each with one due delivery (a team server with many organizations), the backlog's
  // webhook at its limit again.
  await core.deps.sql.transaction((tx) => tx.run(`UPDATE webhook_deliveries SET next_attempt_at_ms = next_attempt_at_ms - 3600000 - ? WHERE webhook_id = 'whk_backlog'`, [rows]));
  await core.deps.sql.transaction(async (tx) => {
    for (let j = 0; j < 1_000; j++) {
      await tx.run(
        `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at, secret_prefix)
         VALUES (?, ?, 'sandbox', 'http://127.0.0.1:9/hook', '["verification.completed"]', 'active', 'x', 0, ?, ?, 'x')`,
        [`whk_many${j}`, org.organizationId, at, at],
      );
      await tx.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, attempts,
           next_attempt_at_ms, created_at_ms, created_at, updated_at) VALUES (?, ?, ?, 'sandbox', ?, 'verification.completed', ?, ?, 'pending', 0, ?, ?, ?, ?)`,
        [`del_m${j}`, `whk_many${j}`, org.organizationId, `evt_m${j}`, `ver_m${j}`, payload, now - 500 + (j % 100), now, at, at],
      );
    }
  });
  results['1,000 more webhooks, one due each: claim of 64, none at its limit'] = await ms(() => claimDueAttempts(core.deps, 64, { perEndpoint: 48, held: new Map() }));
  results['  the same, the backlog\'s webhook at its limit'] = await ms(() => claimDueAttempts(core.deps, 64, { perEndpoint: 48, held: new Map([['whk_backlog', 48]]) }));
  results['  claim of 1 (after an attempt), the backlog\'s webhook at its limit'] = await ms(() => claimDueAttempts(core.deps, 1, { perEndpoint: 48, held: new Map([['whk_backlog', 48]]) }));
  console.log('ms per call (event loop, SQLite included), mean of', repeat);
  console.table(results);
} finally {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
}
