// Sample events for developers (docs/webhooks.md "Sample events"): the record of a documented sandbox fixture
// (an NG account check: a match for verification.completed, ACCOUNT_NOT_FOUND for verification.failed), run
// through the sandbox provider without being stored, wrapped as the event it would send, and queued as a new
// delivery (origin `trigger`) on the normal signed path: same headers, signatures, retries and history.
import { AppError } from '../../../src-shared/app-error';
import type { TriggerResult, WebhookEvent } from '../../../src-shared/schemas/webhooks';
import { loadFixtures } from '../../providers/sandbox/fixtures';
import { signalWork } from '../../store/group-commit';
import { iso } from '../clock';
import { newId } from '../ids';
import type { CoreRuntime } from '../runtime';
import { submitVerification } from '../verification/engine';
import type { Scope, WebhookRow } from './webhooks-service';

async function sampleRecord(rt: CoreRuntime, scope: Scope, event: WebhookEvent): Promise<Record<string, unknown>> {
  const wanted = event === 'verification.completed' ? 'success' : 'failed';
  const fixture = loadFixtures(rt.deps.config.resourcesDir).find(
    (f) => f.kind === 'account' && f.country === 'NG' && f.expected.status === wanted && (wanted === 'success' || f.expected.errorCode === 'ACCOUNT_NOT_FOUND'),
  );
  if (!fixture) throw new AppError('INTERNAL_ERROR', { message: `No sandbox fixture for a sample ${event} event.` });
  // A sandbox principal: the fixture answers, nothing is charged, and persist() is never called, so no record exists.
  const submitted = await submitVerification(
    rt.verification,
    { kind: 'console', organizationId: scope.organizationId, environment: 'sandbox', role: 'OWNER' },
    'account',
    fixture.request,
    { async: false },
  );
  // Events describe async verifications; the sample reads like one, in the webhook's environment.
  return { ...submitted.body, mode: 'async', environment: scope.environment };
}

/**
 * Queues one sample `event` delivery to the given webhook, or (webhookId omitted) to every active webhook of the
 * scope that subscribes to it. A named webhook must be active and subscribed, or nothing is sent and it says why.
 */
export async function triggerSampleEvent(rt: CoreRuntime, scope: Scope, event: WebhookEvent, webhookId?: string): Promise<TriggerResult> {
  const { deps } = rt;
  const hooks =
    webhookId !== undefined
      ? await deps.sql.all<WebhookRow>('SELECT * FROM webhooks WHERE id = ? AND organization_id = ? AND environment = ? AND deleted_at IS NULL', [
          webhookId,
          scope.organizationId,
          scope.environment,
        ])
      : await deps.sql.all<WebhookRow>(
          `SELECT * FROM webhooks WHERE organization_id = ? AND environment = ? AND deleted_at IS NULL AND status = 'active' ORDER BY created_at`,
          [scope.organizationId, scope.environment],
        );
  if (webhookId !== undefined) {
    const hook = hooks[0];
    if (!hook) throw new AppError('NOT_FOUND', { message: 'No webhook with this id exists.' });
    if (hook.status !== 'active') {
      throw new AppError('VALIDATION_ERROR', { details: [{ field: 'webhookId', message: `the webhook is ${hook.status}: re-enable it to send a sample event` }] });
    }
    if (!(JSON.parse(hook.events) as string[]).includes(event)) {
      throw new AppError('VALIDATION_ERROR', { details: [{ field: 'event', message: `the webhook does not subscribe to ${event}` }] });
    }
  }
  const targets = hooks.filter((h) => h.status === 'active' && (JSON.parse(h.events) as string[]).includes(event));
  const record = await sampleRecord(rt, scope, event);
  const verificationId = String(record['id']);
  const nowMs = deps.clock.now();
  const payload = JSON.stringify({ event, verificationId, organizationId: scope.organizationId, timestamp: iso(nowMs), data: record });
  const deliveries = await deps.sql.transaction(async (tx) => {
    const out: { webhookId: string; deliveryId: string }[] = [];
    for (const h of targets) {
      const deliveryId = newId('del');
      await tx.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload,
           status, attempts, next_attempt_at_ms, created_at_ms, created_at, updated_at, origin)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, 'trigger')`,
        [deliveryId, h.id, h.organization_id, h.environment, newId('evt'), event, verificationId, payload, nowMs, nowMs, iso(nowMs), iso(nowMs)],
      );
      out.push({ webhookId: h.id, deliveryId });
    }
    signalWork(tx, 'outbox');
    return out;
  });
  deps.log.info({ event, deliveries: deliveries.length }, 'sample webhook event queued');
  return { eventType: event, deliveries, payload: JSON.parse(payload) as Record<string, unknown> };
}
