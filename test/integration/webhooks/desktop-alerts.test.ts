// The desktop alerts of a failed webhook (src-main/electron/webhook-alerts.ts): a real service whose endpoint fails;
// the OS notification is the outside world, so a stand-in Notification class records what would be shown.
import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationConstructorOptions } from 'electron';
import { startWebhookAlerts, webhookTrayState, type WebhookTrayState } from '../../../src-main/electron/webhook-alerts';
import { api } from '../../helpers/harness';
import { receiverAndService, registerWebhook, until, verifyAsync } from './helpers';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('desktop webhook alerts', () => {
  it('notifies once when a webhook fails, shows the tray state, opens the webhook on click, and clears on re-enable', async () => {
    const { ts, receiver } = await receiverAndService({ retryUnitMs: 5 });
    cleanup.push(() => receiver.close(), () => ts.stop());
    receiver.setResponder(() => ({ status: 500, body: 'down' }));

    const shown: { options: NotificationConstructorOptions; click?: () => void }[] = [];
    class StandIn {
      static isSupported(): boolean {
        return true;
      }
      private entry: { options: NotificationConstructorOptions; click?: () => void };
      constructor(options: NotificationConstructorOptions) {
        this.entry = { options };
      }
      on(event: string, fn: () => void): this {
        if (event === 'click') this.entry.click = fn;
        return this;
      }
      show(): void {
        shown.push(this.entry);
      }
    }
    const states: WebhookTrayState[] = [];
    const opened: string[] = [];
    const alerts = startWebhookAlerts({
      deps: ts.service.deps,
      Notification: StandIn as never,
      setTrayState: (s) => states.push(s),
      openWebhook: (id, env) => opened.push(`${env}:${id}`),
      refreshMs: 0,
    });
    cleanup.push(() => alerts.stop());
    // The first state is read from the store as the alerts start (asynchronously).
    await until(() => states.length > 0, 'the first tray state');
    expect(states).toEqual([{ failed: 0, label: null, latest: null }]);

    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    await until(() => shown.length === 1, 'the notification');
    await until(() => states.length > 1, 'the tray state after the failure');
    expect(shown[0]!.options.title).toBe('Webhook failed (sandbox)');
    expect(shown[0]!.options.body).toContain(`${receiver.url}/hook`);
    expect(shown[0]!.options.body).toContain('Last error: HTTP 500');
    expect(states.at(-1)).toMatchObject({ failed: 1, label: '1 webhook failed', latest: { webhookId: hook.id, environment: 'sandbox' } });
    shown[0]!.click!();
    expect(opened).toEqual([`sandbox:${hook.id}`]);

    await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { status: 'active' } });
    await alerts.refresh();
    expect(states.at(-1)).toEqual({ failed: 0, label: null, latest: null });
    expect(shown).toHaveLength(1);
  });

  it('counts several failed webhooks', () => {
    const a = { failureId: 'whf_1', webhookId: 'whk_1', url: 'https://a', description: null, environment: 'live' as const, failedAt: '2026-11-24T10:00:00.000Z', deliveryId: 'del_1', lastStatusCode: 500, lastError: 'HTTP 500', droppedDeliveries: 0, eventsNotSent: 0 };
    expect(webhookTrayState([a, { ...a, webhookId: 'whk_2' }])).toMatchObject({ failed: 2, label: '2 webhooks failed', latest: { webhookId: 'whk_1' } });
  });
});
