// Export and import of the non-secret configuration (webhooks without secrets, prices, enabled services, saved
// settings) as one versioned JSON file. Import merges: it creates and updates, never deletes, so applying the same
// file twice leaves the same state; everything is checked before anything is written, and the writes share one
// transaction. Imported webhooks get new signing secrets: the file never holds one. Demo data (docs/demo.md) is not
// configuration: the demo's webhook is left out of the export.
import { AppError } from '../../../src-shared/app-error';
import { resolveWebhookFailure } from '../webhooks/failures';
import type { FieldDetail } from '../../../src-shared/errors';
import type { Environment } from '../../../src-shared/schemas/common';
import {
  CONFIG_FORMAT,
  CONFIG_VERSION,
  type ConfigFile,
  type ConfigWebhook,
  type ImportChange,
  type ImportPlan,
  type PersistedSettings,
} from '../../../src-shared/schemas/settings';
import type { WebhookStatus } from '../../../src-shared/schemas/webhooks';
import { isServiceKey } from '../../../src-shared/services';
import { enableService, getWallet, priceCurrencyProblem, setPrice } from '../billing/billing';
import type { SqlQueries } from '../../store/sql-port';
import { iso } from '../clock';
import { newId } from '../ids';
import type { CoreRuntime } from '../runtime';
import { cancelPendingDeliveries, urlPolicyOf, type WebhookRow } from '../webhooks/webhooks-service';
import { generateWebhookSecret } from '../webhooks/signing';
import { sealWebhookSecret, SHOWN_PREFIX_LENGTH } from '../webhooks/secret-sealing';
import { checkWebhookUrlForRegistration } from '../webhooks/url-policy';
import { readPersistedSettings, writePersistedSettings } from './settings-store';
import { appendAudit } from '../audit/audit-log';
import { perEngine } from '../../store/pg/dialect';

type ExistingHook = Pick<WebhookRow, 'id' | 'environment' | 'url' | 'events' | 'status' | 'description'>;

const LIVE_HOOKS = perEngine(
  (d) => `SELECT id, environment, url, events, status, description FROM webhooks
     WHERE organization_id = ? AND deleted_at IS NULL ORDER BY environment, created_at, ${d.insertionOrder()}`,
);

function liveHooks(q: SqlQueries, organizationId: string): Promise<ExistingHook[]> {
  return q.all<ExistingHook>(LIVE_HOOKS[q.engine], [organizationId]);
}

/** The webhooks the demo loader made (demo_records): sample data, and a URL only the loader's run was allowed. */
async function demoHookIds(q: SqlQueries): Promise<Set<string>> {
  const rows = await q.all<{ record_id: string }>(`SELECT record_id FROM demo_records WHERE table_name = 'webhooks'`, []);
  return new Set(rows.map((r) => r.record_id));
}

export async function exportConfig(rt: CoreRuntime, organizationId: string): Promise<ConfigFile> {
  const q = rt.deps.sql;
  const demo = await demoHookIds(q);
  const webhooks = (await liveHooks(q, organizationId)).filter((h) => !demo.has(h.id)).map(
    (h): ConfigWebhook => ({
      environment: h.environment,
      url: h.url,
      events: JSON.parse(h.events) as ConfigWebhook['events'],
      description: h.description,
      status: h.status,
    }),
  );
  const prices = await q.all<{ service: string; amount: number; currency: string }>(
    'SELECT service, amount, currency FROM prices WHERE organization_id = ? ORDER BY service',
    [organizationId],
  );
  const services = (await q.all<{ service: string }>('SELECT service FROM enabled_services WHERE organization_id = ? ORDER BY service', [organizationId])).map(
    (r) => r.service,
  );
  return {
    format: CONFIG_FORMAT,
    version: CONFIG_VERSION,
    exportedAt: iso(rt.deps.clock.now()),
    webhooks,
    prices,
    services,
    settings: await readPersistedSettings(q),
  };
}

/** `failed` is the dispatcher's verdict about one installation's receiver; elsewhere the hook starts paused. */
function importedStatus(s: WebhookStatus): 'active' | 'inactive' {
  return s === 'active' ? 'active' : 'inactive';
}

function hookKey(environment: Environment, url: string): string {
  return `${environment} ${url}`;
}

type Op =
  | { kind: 'webhook:create'; hook: ConfigWebhook & { url: string } }
  | { kind: 'webhook:update'; id: string; hook: ConfigWebhook & { url: string }; wasStatus: WebhookStatus }
  | { kind: 'price'; service: string; amount: number; currency: string }
  | { kind: 'service'; service: string }
  | { kind: 'settings'; patch: PersistedSettings };

interface Diff {
  changes: ImportChange[];
  ops: Op[];
  restartRequired: boolean;
}

/**
 * Compares the file (URLs already canonical) with the store. Pure reads: used by the preview (`q` the port) and
 * inside the write (`q` its transaction).
 */
async function diff(q: SqlQueries, organizationId: string, file: ConfigFile, unchecked: ReadonlySet<string>): Promise<Diff> {
  const changes: ImportChange[] = [];
  const ops: Op[] = [];

  const existing = new Map((await liveHooks(q, organizationId)).map((h) => [hookKey(h.environment, h.url), h]));
  for (const hook of file.webhooks) {
    const target = `${hook.environment} ${hook.url}`;
    const status = importedStatus(hook.status);
    const events = [...new Set(hook.events)];
    const description = hook.description ?? null;
    const cur = existing.get(hookKey(hook.environment, hook.url));
    const next = { ...hook, events, description, status };
    if (!cur) {
      // Its URL skipped the rules because it was registered; deleted since, it would be a new registration.
      if (unchecked.has(hookKey(hook.environment, hook.url))) {
        throw new AppError('VALIDATION_ERROR', {
          message: 'The configuration file cannot be imported; nothing was changed.',
          details: [{ field: 'webhooks', message: `${target} was deleted while the file was checked; import it again` }],
        });
      }
      ops.push({ kind: 'webhook:create', hook: next });
      changes.push({ kind: 'webhook', action: 'create', target, detail: `new webhook (${events.join(', ')}, ${status}) with a new signing secret` });
      continue;
    }
    const diffs: string[] = [];
    const curEvents = JSON.parse(cur.events) as string[];
    if (curEvents.join(',') !== events.join(',')) diffs.push(`events ${curEvents.join(', ')} → ${events.join(', ')}`);
    if ((cur.description ?? null) !== description) diffs.push(`description ${JSON.stringify(cur.description)} → ${JSON.stringify(description)}`);
    // A hook the dispatcher marked failed stays failed unless the file re-enables it.
    const sameStatus = cur.status === status || (cur.status === 'failed' && status === 'inactive');
    if (!sameStatus) diffs.push(`status ${cur.status} → ${status}`);
    if (diffs.length === 0) {
      changes.push({ kind: 'webhook', action: 'unchanged', target, detail: 'same events, description and status; secret kept' });
    } else {
      ops.push({ kind: 'webhook:update', id: cur.id, hook: next, wasStatus: cur.status });
      changes.push({ kind: 'webhook', action: 'update', target, detail: `${diffs.join('; ')} (secret kept)` });
    }
  }

  const prices = new Map(
    (await q.all<{ service: string; amount: number; currency: string }>('SELECT service, amount, currency FROM prices WHERE organization_id = ?', [organizationId])).map(
      (p) => [p.service, p],
    ),
  );
  for (const p of file.prices) {
    const cur = prices.get(p.service);
    if (cur && cur.amount === p.amount && cur.currency === p.currency) {
      changes.push({ kind: 'price', action: 'unchanged', target: p.service, detail: `${p.amount} ${p.currency} (minor units)` });
    } else {
      ops.push({ kind: 'price', ...p });
      changes.push({
        kind: 'price',
        action: cur ? 'update' : 'create',
        target: p.service,
        detail: cur ? `${cur.amount} ${cur.currency} → ${p.amount} ${p.currency} (minor units)` : `${p.amount} ${p.currency} (minor units)`,
      });
    }
  }

  const enabled = new Set((await q.all<{ service: string }>('SELECT service FROM enabled_services WHERE organization_id = ?', [organizationId])).map((r) => r.service));
  for (const s of new Set(file.services)) {
    if (enabled.has(s)) changes.push({ kind: 'service', action: 'unchanged', target: s, detail: 'enabled' });
    else {
      ops.push({ kind: 'service', service: s });
      changes.push({ kind: 'service', action: 'create', target: s, detail: 'will be enabled' });
    }
  }

  const saved = await readPersistedSettings(q);
  const patch: PersistedSettings = {};
  let restartRequired = false;
  for (const k of ['host', 'port', 'rateLimitPerMinute'] as const) {
    const v = file.settings[k];
    if (v === undefined) continue;
    const was = saved[k];
    const note = k === 'rateLimitPerMinute' ? 'applies at once' : 'applies after a restart';
    if (was === v) {
      changes.push({ kind: 'setting', action: 'unchanged', target: k, detail: String(v) });
    } else {
      (patch as Record<string, unknown>)[k] = v;
      if (k !== 'rateLimitPerMinute') restartRequired = true;
      changes.push({ kind: 'setting', action: was === undefined ? 'create' : 'update', target: k, detail: `${was ?? '(default)'} → ${v}; ${note}` });
    }
  }
  if (Object.keys(patch).length > 0) ops.push({ kind: 'settings', patch });
  return { changes, ops, restartRequired };
}

/**
 * Every check that needs no write: URL rules (with DNS), duplicates, known services, the wallet's currency. A URL that
 * is already registered in the same environment, as the file spells it, is not registered again: like a webhook's
 * update without a new URL, the import leaves it as it is and does not re-apply the registration rules (a URL
 * allowed by a developer option of an earlier run, e.g. an older export with the demo's webhook, stays importable).
 */
async function validateFile(rt: CoreRuntime, organizationId: string, file: ConfigFile): Promise<{ file: ConfigFile; unchecked: Set<string> }> {
  const details: FieldDetail[] = [];
  const policy = urlPolicyOf(rt);
  const registered = new Set((await liveHooks(rt.deps.sql, organizationId)).map((h) => hookKey(h.environment, h.url)));
  const unchecked = new Set<string>();
  const seen = new Set<string>();
  const webhooks: ConfigWebhook[] = [];
  for (const [i, hook] of file.webhooks.entries()) {
    let url = hook.url;
    if (!registered.has(hookKey(hook.environment, hook.url))) {
      const verdict = await checkWebhookUrlForRegistration(hook.url, policy);
      if (!verdict.ok) {
        details.push({ field: `webhooks.${i}.url`, message: verdict.reason });
        continue;
      }
      url = verdict.url.href;
    } else {
      unchecked.add(hookKey(hook.environment, url));
    }
    const key = hookKey(hook.environment, url);
    if (seen.has(key)) details.push({ field: `webhooks.${i}.url`, message: `appears twice for ${hook.environment}` });
    seen.add(key);
    webhooks.push({ ...hook, url });
  }
  const priceSeen = new Set<string>();
  const wallet = await getWallet(rt.deps, organizationId);
  for (const [i, p] of file.prices.entries()) {
    if (!isServiceKey(p.service)) details.push({ field: `prices.${i}.service`, message: `${p.service} is not a service this product offers` });
    if (priceSeen.has(p.service)) details.push({ field: `prices.${i}.service`, message: `${p.service} has two prices` });
    priceSeen.add(p.service);
    // The rule `prices set` keeps (setPrice), checked for every line at once.
    const problem = priceCurrencyProblem(p.currency, wallet);
    if (problem) details.push({ field: `prices.${i}.currency`, message: problem });
  }
  for (const [i, s] of file.services.entries()) {
    if (!isServiceKey(s)) details.push({ field: `services.${i}`, message: `${s} is not a service this product offers` });
  }
  if (details.length > 0) {
    throw new AppError('VALIDATION_ERROR', { message: 'The configuration file cannot be imported; nothing was changed.', details });
  }
  return { file: { ...file, webhooks }, unchecked };
}

/** Writes the plan's operations through `tx`, the import's transaction. */
async function applyOps(rt: CoreRuntime, tx: SqlQueries, organizationId: string, ops: Op[]): Promise<void> {
  const deps = { ...rt.deps, sql: tx };
  const nowMs = deps.clock.now();
  const now = iso(nowMs);
  for (const op of ops) {
    switch (op.kind) {
      case 'webhook:create': {
        // A new secret, sealed like every webhook secret (docs/webhooks.md); the owner sees it by rotating.
        const secret = generateWebhookSecret();
        const id = newId('whk');
        await tx.run(
          `INSERT INTO webhooks (id, organization_id, environment, url, events, status, description, secret, secret_prefix, active_since_ms, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            organizationId,
            op.hook.environment,
            op.hook.url,
            JSON.stringify(op.hook.events),
            op.hook.status,
            op.hook.description ?? null,
            sealWebhookSecret(rt.deps, secret),
            secret.slice(0, SHOWN_PREFIX_LENGTH),
            nowMs,
            now,
            now,
          ],
        );
        await appendAudit(deps, organizationId, { action: 'webhook.created', target: { type: 'webhook', id }, detail: { url: op.hook.url, environment: op.hook.environment, events: op.hook.events } });
        break;
      }
      case 'webhook:update': {
        const reEnabled = op.hook.status === 'active' && op.wasStatus !== 'active';
        await tx.run(
          `UPDATE webhooks SET events = ?, description = ?, status = ?, updated_at = ?,
             active_since_ms = CASE WHEN ? THEN ? ELSE active_since_ms END
           WHERE id = ?`,
          [
            JSON.stringify(op.hook.events),
            op.hook.description ?? null,
            op.hook.status === 'inactive' && op.wasStatus === 'failed' ? 'failed' : op.hook.status,
            now,
            reEnabled ? 1 : 0,
            nowMs,
            op.id,
          ],
        );
        await appendAudit(deps, organizationId, {
          action: 'webhook.updated',
          target: { type: 'webhook', id: op.id },
          detail: { events: op.hook.events, description: op.hook.description ?? null, status: op.hook.status },
        });
        if (op.hook.status !== 'active') await cancelPendingDeliveries(deps, op.id, 'webhook paused by a configuration import', 'webhook_paused');
        if (reEnabled && op.wasStatus === 'failed') await resolveWebhookFailure(deps, op.id, 'reenabled');
        break;
      }
      // Prices and services through the core's own calls (a savepoint each in the import's transaction): the same
      // rules as `prices set` and `services enable`, and each change its own audit entry beside config.imported.
      case 'price':
        await setPrice(deps, organizationId, op.service, op.amount, op.currency);
        break;
      case 'service':
        await enableService(deps, organizationId, op.service);
        break;
      case 'settings':
        await writePersistedSettings(tx, op.patch);
        break;
    }
  }
}

/**
 * Previews (dryRun) or applies a configuration file. The plan lists every line of the file with what it does;
 * applying runs the comparison again inside the write transaction, so a change made meanwhile is not overwritten
 * by a stale plan.
 */
export async function importConfig(rt: CoreRuntime, organizationId: string, raw: ConfigFile, opts: { dryRun: boolean }): Promise<ImportPlan> {
  const { file, unchecked } = await validateFile(rt, organizationId, raw);
  const plan = (d: Diff, applied: boolean): ImportPlan => ({
    changes: d.changes,
    newWebhookSecrets: d.ops.filter((o) => o.kind === 'webhook:create').length,
    restartRequired: d.restartRequired,
    applied,
  });
  if (opts.dryRun) return plan(await diff(rt.deps.sql, organizationId, file, unchecked), false);
  const d = await rt.deps.sql.transaction(async (tx): Promise<Diff> => {
    const inner = await diff(tx, organizationId, file, unchecked);
    await applyOps(rt, tx, organizationId, inner.ops);
    const changed = inner.changes.filter((c) => c.action !== 'unchanged');
    await appendAudit({ ...rt.deps, sql: tx }, organizationId, {
      action: 'config.imported',
      target: { type: 'configuration', id: null },
      detail: { changes: changed.length, byKind: Object.fromEntries(['create', 'update', 'remove'].map((a) => [a, changed.filter((c) => c.action === a).length])) },
    });
    return inner;
  });
  // The rate limit is read by the HTTP door on every request; the listener address waits for a restart.
  const rate = file.settings.rateLimitPerMinute;
  if (rate !== undefined) rt.deps.config.rateLimitPerMinute = rate;
  return plan(d, true);
}
