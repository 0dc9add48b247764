// Webhook endpoints (interface §2.7, §3.2, §4.3; decisions §7): register, list, read, update (status, URL,
// events, secret rotation with a 24 h overlap) and delete, scoped to the caller's organization and environment.
// Secrets are shown once and never leave this module otherwise; the store holds them sealed (secret-sealing.ts).
import { AppError } from '../../../src-shared/app-error';
import type { Environment } from '../../../src-shared/schemas/common';
import type {
  CreateWebhookRequest,
  DropReason,
  RotatedWebhook,
  UpdateWebhookRequest,
  Webhook,
  WebhookEvent,
  WebhookListQuery,
  WebhookStatus,
  WebhookUpdateResult,
  WebhookWithSecret,
} from '../../../src-shared/schemas/webhooks';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import type { CoreRuntime } from '../runtime';
import { openWebhookSecret, sealIfPlain, sealWebhookSecret, SHOWN_PREFIX_LENGTH, tryOpenWebhookSecret } from './secret-sealing';
import { generateWebhookSecret } from './signing';
import { checkWebhookUrlForRegistration, type Resolver, type UrlPolicy } from './url-policy';
import { earliestPendingEventAt, recordWebhookFailure, resolveWebhookFailure, type WebhookFailedEvent } from './failures';
import { ListFilter, listPage } from '../../store/list-query';
import { appendAudit, audited } from '../audit/audit-log';
import { dialectOf } from '../../store/pg/dialect';

/** How long the previous secret keeps signing after a rotation (decisions §7). */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A `webhooks` row (a type, not an interface, so a row passes as the named parameters of a statement). */
export type WebhookRow = {
  id: string;
  organization_id: string;
  environment: Environment;
  url: string;
  events: string;
  status: WebhookStatus;
  description: string | null;
  /** Sealed (`gcm1:…`); '' once the webhook is deleted. A plain value only in rows older code wrote. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at_ms: number | null;
  /** The shown `secretPrefix`; null in rows written before migration 8 until the start-up step fills it. */
  secret_prefix: string | null;
  active_since_ms: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type Scope = Pick<Principal, 'organizationId' | 'environment'>;

export function toWebhook(r: WebhookRow, nowMs: number): Webhook {
  const overlap = r.previous_secret !== null && r.previous_secret_expires_at_ms !== null && r.previous_secret_expires_at_ms > nowMs;
  return {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as WebhookEvent[],
    status: r.status,
    description: r.description,
    environment: r.environment,
    secretPrefix: r.secret_prefix ?? shownPrefixOfUnprefixedRow(r.secret),
    previousSecretExpiresAt: overlap ? iso(r.previous_secret_expires_at_ms!) : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

// A row another writer inserted without a prefix: its plain secret gives it; a sealed one is not opened to list.
function shownPrefixOfUnprefixedRow(stored: string): string {
  return stored.startsWith('whsec_') ? stored.slice(0, SHOWN_PREFIX_LENGTH) : 'whsec_';
}

/**
 * The secrets that sign a delivery now, opened: the current one first, then the previous one during the overlap.
 * The result must only reach the signing functions.
 */
export function signingSecrets(
  deps: CoreDeps,
  r: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at_ms'>,
  nowMs: number,
): string[] {
  const out = [openWebhookSecret(deps, r.secret)];
  if (r.previous_secret && r.previous_secret_expires_at_ms !== null && r.previous_secret_expires_at_ms > nowMs) {
    out.push(openWebhookSecret(deps, r.previous_secret));
  }
  return out;
}

/** The URL policy of this runtime: developer allow-list plus our own listener, read lazily (the port comes late). */
export function urlPolicyOf(rt: CoreRuntime): UrlPolicy {
  return {
    allowHosts: rt.deps.config.allowWebhookHosts,
    get ownListeners() {
      const base = rt.info().apiBaseUrl;
      if (!base) return [];
      const u = new URL(base);
      return [{ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) }];
    },
  };
}

/** Resolver override for tests (no DNS traffic); null means the system resolver. */
let registrationResolver: Resolver | null = null;
export function setRegistrationResolverForTests(r: Resolver | null): void {
  registrationResolver = r;
}

async function checkedUrl(rt: CoreRuntime, raw: string): Promise<string> {
  const verdict = registrationResolver
    ? await checkWebhookUrlForRegistration(raw, urlPolicyOf(rt), registrationResolver)
    : await checkWebhookUrlForRegistration(raw, urlPolicyOf(rt));
  if (!verdict.ok) {
    throw new AppError('INVALID_WEBHOOK_URL', { details: [{ field: 'url', message: verdict.reason }] });
  }
  // The canonical form is what was checked, and what the dispatcher will dial.
  return verdict.url.href;
}

function uniqueEvents(events: readonly WebhookEvent[]): WebhookEvent[] {
  return [...new Set(events)];
}

export async function getRow(deps: CoreDeps, scope: Scope, id: string): Promise<WebhookRow> {
  const row = await deps.sql.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ? AND organization_id = ? AND environment = ? AND deleted_at IS NULL', [
    id,
    scope.organizationId,
    scope.environment,
  ]);
  if (!row) throw new AppError('NOT_FOUND', { message: 'No webhook with this id exists.' });
  return row;
}

export async function createWebhook(rt: CoreRuntime, scope: Scope, input: CreateWebhookRequest): Promise<WebhookWithSecret> {
  const url = await checkedUrl(rt, input.url);
  const { deps } = rt;
  const nowMs = deps.clock.now();
  const now = iso(nowMs);
  const secret = generateWebhookSecret();
  const row: WebhookRow = {
    id: newId('whk'),
    organization_id: scope.organizationId,
    environment: scope.environment,
    url,
    events: JSON.stringify(uniqueEvents(input.events)),
    status: 'active',
    description: input.description ?? null,
    secret: sealWebhookSecret(deps, secret),
    previous_secret: null,
    previous_secret_expires_at_ms: null,
    secret_prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
    active_since_ms: nowMs,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await audited(
    deps,
    scope.organizationId,
    (tx) =>
      tx.run(
        `INSERT INTO webhooks (id, organization_id, environment, url, events, status, description, secret, secret_prefix, active_since_ms, created_at, updated_at)
         VALUES (@id, @organization_id, @environment, @url, @events, @status, @description, @secret, @secret_prefix, @active_since_ms, @created_at, @updated_at)`,
        row,
      ),
    () => ({ action: 'webhook.created', target: { type: 'webhook', id: row.id }, detail: { url, environment: scope.environment, events: JSON.parse(row.events) as string[] } }),
  );
  deps.log.info({ webhookId: row.id, organizationId: scope.organizationId }, 'webhook registered');
  return { ...toWebhook(row, nowMs), secret };
}

export async function listWebhooks(deps: CoreDeps, scope: Scope, q: WebhookListQuery): Promise<{ data: Webhook[]; total: number }> {
  const filter = new ListFilter()
    .eq('organization_id', scope.organizationId)
    .eq('environment', scope.environment)
    .where('deleted_at IS NULL')
    .eq('status', q.status);
  const d = dialectOf(deps.sql.engine);
  if (q.event) filter.where(`? IN ${d.jsonArrayValues('webhooks.events')}`, q.event);
  const { rows, total: n } = await listPage<WebhookRow>(deps.sql, {
    select: '*',
    from: 'webhooks',
    filter,
    orderBy: `created_at DESC, ${d.insertionOrder()} DESC`,
    limit: q.limit,
    offset: q.offset,
  });
  const nowMs = deps.clock.now();
  return { data: rows.map((r) => toWebhook(r, nowMs)), total: n };
}

export async function getWebhook(deps: CoreDeps, scope: Scope, id: string): Promise<Webhook> {
  return toWebhook(await getRow(deps, scope, id), deps.clock.now());
}

/**
 * Ends the schedule of every pending delivery of a webhook (paused, failed or deleted: interface §3.2). They stay
 * `failed` for the API and carry why and when they were dropped, so nothing looks pending or cut short.
 */
export async function cancelPendingDeliveries(deps: CoreDeps, webhookId: string, reason: string, dropReason: DropReason): Promise<number> {
  const nowMs = deps.clock.now();
  const { changes } = await deps.sql.run(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at_ms = NULL, last_error = ?, dropped_reason = ?, dropped_at_ms = ?,
       updated_at = ? WHERE webhook_id = ? AND status = 'pending'`,
    [reason, dropReason, nowMs, iso(nowMs), webhookId],
  );
  return changes;
}

export async function updateWebhook(rt: CoreRuntime, scope: Scope, id: string, patch: UpdateWebhookRequest): Promise<WebhookUpdateResult> {
  const { deps } = rt;
  await getRow(deps, scope, id); // 404 before any URL check or DNS lookup
  const url = patch.url !== undefined ? await checkedUrl(rt, patch.url) : undefined;
  return deps.sql.transaction(async (tx): Promise<WebhookUpdateResult> => {
    const t: CoreDeps = { ...deps, sql: tx };
    const row = await getRow(t, scope, id);
    const nowMs = deps.clock.now();
    // Any write also seals what a writer that does not seal yet left plain (config import before a restart).
    const next: WebhookRow = {
      ...row,
      secret: sealIfPlain(deps, row.secret),
      previous_secret: row.previous_secret === null ? null : sealIfPlain(deps, row.previous_secret),
      secret_prefix: row.secret_prefix ?? (tryOpenWebhookSecret(deps, row.secret)?.slice(0, SHOWN_PREFIX_LENGTH) || null),
      updated_at: iso(nowMs),
    };
    if (url !== undefined) next.url = url;
    if (patch.events !== undefined) next.events = JSON.stringify(uniqueEvents(patch.events));
    if (patch.description !== undefined) next.description = patch.description;
    if (patch.status !== undefined && patch.status !== row.status) {
      next.status = patch.status;
      // Only events after this moment reach a re-enabled endpoint (interface §3.2).
      if (patch.status === 'active') next.active_since_ms = nowMs;
      else await cancelPendingDeliveries(t, id, 'webhook paused (status inactive)', 'webhook_paused');
      if (row.status === 'failed') await resolveWebhookFailure(t, id, patch.status === 'active' ? 'reenabled' : 'paused');
    }
    let secret: string | undefined;
    if (patch.rotateSecret) {
      secret = generateWebhookSecret();
      // An old secret that no longer opens cannot sign during the overlap; keeping it would fail every attempt.
      next.previous_secret = tryOpenWebhookSecret(deps, next.secret) ? next.secret : null;
      next.previous_secret_expires_at_ms = nowMs + SECRET_OVERLAP_MS;
      next.secret = sealWebhookSecret(deps, secret);
      next.secret_prefix = secret.slice(0, SHOWN_PREFIX_LENGTH);
    }
    await tx.run(
      `UPDATE webhooks SET url = @url, events = @events, status = @status, description = @description, secret = @secret,
         secret_prefix = @secret_prefix, previous_secret = @previous_secret, previous_secret_expires_at_ms = @previous_secret_expires_at_ms,
         active_since_ms = @active_since_ms, updated_at = @updated_at WHERE id = @id`,
      next,
    );
    // One entry per kind of change, each in this transaction (docs/audit.md); never a secret.
    const target = { type: 'webhook', id };
    const changed: Record<string, unknown> = {};
    if (url !== undefined && url !== row.url) changed['url'] = { from: row.url, to: url };
    if (patch.events !== undefined && next.events !== row.events) changed['events'] = JSON.parse(next.events) as string[];
    if (patch.description !== undefined && next.description !== row.description) changed['description'] = next.description;
    if (Object.keys(changed).length > 0) await appendAudit(t, scope.organizationId, { action: 'webhook.updated', target, detail: changed });
    if (patch.status !== undefined && patch.status !== row.status) {
      const action = patch.status === 'inactive' ? 'webhook.paused' : row.status === 'failed' ? 'webhook.reenabled' : 'webhook.resumed';
      await appendAudit(t, scope.organizationId, { action, target, detail: { from: row.status, to: patch.status } });
    }
    if (secret !== undefined) await appendAudit(t, scope.organizationId, { action: 'webhook.rotated', target, detail: { previousKeptUntil: iso(next.previous_secret_expires_at_ms!) } });
    return secret !== undefined ? { ...toWebhook(next, nowMs), secret } : toWebhook(next, nowMs);
  });
}

export async function deleteWebhook(deps: CoreDeps, scope: Scope, id: string): Promise<void> {
  await deps.sql.transaction(async (tx) => {
    const t: CoreDeps = { ...deps, sql: tx };
    await getRow(t, scope, id);
    const now = iso(deps.clock.now());
    await cancelPendingDeliveries(t, id, 'webhook deleted', 'webhook_deleted');
    await resolveWebhookFailure(t, id, 'deleted');
    // The row stays for the deliveries' foreign key; its secrets are wiped so nothing can sign for it again.
    await tx.run(
      `UPDATE webhooks SET deleted_at = ?, updated_at = ?, status = 'inactive', secret = '', previous_secret = NULL,
         previous_secret_expires_at_ms = NULL WHERE id = ?`,
      [now, now, id],
    );
    await appendAudit(t, scope.organizationId, { action: 'webhook.deleted', target: { type: 'webhook', id } });
  });
}

/**
 * Called by the dispatcher, inside the attempt's transaction, after a delivery's last scheduled attempt failed:
 * the webhook turns `failed`, its other pending deliveries are dropped, and the failure is recorded. Returns the
 * `webhook.failed` event to emit after commit, or null when the webhook was not active any more.
 */
export async function markWebhookFailed(
  deps: CoreDeps,
  webhookId: string,
  cause: { deliveryId: string; statusCode: number | null; error: string | null },
): Promise<WebhookFailedEvent | null> {
  const now = iso(deps.clock.now());
  const { changes } = await deps.sql.run(`UPDATE webhooks SET status = 'failed', updated_at = ? WHERE id = ? AND status = 'active' AND deleted_at IS NULL`, [
    now,
    webhookId,
  ]);
  if (changes === 0) return null;
  const droppedSince = await earliestPendingEventAt(deps, webhookId);
  const dropped = await cancelPendingDeliveries(deps, webhookId, 'webhook failed: retries exhausted on another delivery', 'webhook_failed');
  const hook = (await deps.sql.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [webhookId]))!;
  deps.log.warn({ webhookId, deliveryId: cause.deliveryId, dropped }, 'webhook failed');
  await appendAudit(
    deps,
    hook.organization_id,
    { action: 'webhook.failed', target: { type: 'webhook', id: webhookId }, detail: { deliveryId: cause.deliveryId, statusCode: cause.statusCode, lastError: cause.error?.slice(0, 200) ?? null, dropped } },
    { actor: { type: 'system', id: null, label: 'webhook dispatcher' }, door: 'system' },
  );
  return recordWebhookFailure(deps, hook, cause, dropped, droppedSince);
}

/**
 * The console's rotation: the new secret and the one rotated out (it keeps signing during the overlap), so the
 * rotate dialog can hand a receiver both. The public API returns only the new one (decisions §7).
 */
export async function rotateWebhookSecret(rt: CoreRuntime, scope: Scope, id: string): Promise<RotatedWebhook> {
  const res = await updateWebhook(rt, scope, id, { rotateSecret: true });
  const row = await getRow(rt.deps, scope, id);
  const previousSecret = row.previous_secret ? tryOpenWebhookSecret(rt.deps, row.previous_secret) : null;
  return { ...res, secret: res.secret!, previousSecret: previousSecret ?? null };
}

/** The webhook's organization and environment (the CLI acts as the installation's owner and has no scope). */
export async function webhookScope(deps: CoreDeps, webhookId: string): Promise<Scope> {
  const row = await deps.sql.get<{ organization_id: string; environment: Environment }>(
    'SELECT organization_id, environment FROM webhooks WHERE id = ? AND deleted_at IS NULL',
    [webhookId],
  );
  if (!row) throw new AppError('NOT_FOUND', { message: 'No webhook with this id exists.' });
  return { organizationId: row.organization_id, environment: row.environment };
}
