// A webhook-failed notification stays referenced while it is on screen (src-main/electron/webhook-alerts.ts): a
// notification nothing refers to may be garbage-collected, and its click then no longer opens the webhook.
import { EventEmitter } from 'node:events';
import type { NotificationConstructorOptions } from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src-main/core/context';
import { emitWebhookFailed, type WebhookFailedEvent } from '../../src-main/core/webhooks/failures';
import { heldNotificationCount, startWebhookAlerts } from '../../src-main/electron/webhook-alerts';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
});

class StandIn extends EventEmitter {
  static made: StandIn[] = [];
  static isSupported(): boolean {
    return true;
  }
  constructor(readonly options: NotificationConstructorOptions) {
    super();
    StandIn.made.push(this);
  }
  show(): void {}
}

const event = (webhookId: string): WebhookFailedEvent => ({
  type: 'webhook.failed',
  failureId: `whf_${webhookId}`,
  deliveryId: `del_${webhookId}`,
  webhookId,
  organizationId: 'org_1',
  environment: 'sandbox',
  url: 'https://receiver.example/hook',
  description: null,
  failedAt: '2026-11-27T10:00:00.000Z',
  lastStatusCode: 500,
  lastError: null,
  droppedDeliveries: 0,
});

describe('webhook-failed notifications are held while shown', () => {
  it('holds each shown notification until it is clicked, closed or fails', () => {
    // The store is not read here: the tray refresh fails and is logged, which this test does not look at.
    const log = { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} };
    const deps = { sql: {}, log } as unknown as CoreDeps;
    const opened: string[] = [];
    const alerts = startWebhookAlerts({ deps, Notification: StandIn as never, setTrayState: () => {}, openWebhook: (id) => opened.push(id), refreshMs: 0 });
    stops.push(() => alerts.stop());
    StandIn.made = [];
    const before = heldNotificationCount();
    for (const id of ['whk_1', 'whk_2', 'whk_3']) emitWebhookFailed(deps, event(id));
    expect(StandIn.made).toHaveLength(3);
    expect(heldNotificationCount()).toBe(before + 3);
    StandIn.made[0]!.emit('click');
    expect(opened).toEqual(['whk_1']);
    expect(heldNotificationCount()).toBe(before + 2);
    StandIn.made[1]!.emit('close');
    expect(heldNotificationCount()).toBe(before + 1);
    StandIn.made[2]!.emit('failed', {}, 'no notification server');
    expect(heldNotificationCount()).toBe(before);
  });
});
