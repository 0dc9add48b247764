// Desktop side of "a failure nobody misses" (docs/webhooks.md "When an endpoint fails"): an OS notification when a
// webhook turns `failed`, and a tray state that says how many are failed, from start-up on. The main process calls
// startWebhookAlerts once the service runs; the tray owner renders the state it is given.
//
// Wiring (main.ts):
//   import { Notification } from 'electron';
//   const alerts = startWebhookAlerts({
//     deps: service.deps,
//     Notification,
//     setTrayState: (s) => shellMenus.setWebhookState(s),          // tooltip / menu item / attention icon
//     openWebhook: (id, env) => showWindowAt(`/webhooks?env=${env}&webhook=${id}`),
//   });
//   …on quit: alerts.stop();
import type { Notification as ElectronNotification, NotificationConstructorOptions } from 'electron';
import type { WebhookAlert } from '../../src-shared/schemas/webhooks';
import type { CoreDeps } from '../core/context';
import { listWebhookAlerts, onWebhookFailed, type WebhookFailedEvent } from '../core/webhooks/failures';

/** What the tray shows: nothing when no webhook is failed. */
export interface WebhookTrayState {
  failed: number;
  /** Menu item / tooltip line, e.g. "2 webhooks failed"; null when none. */
  label: string | null;
  /** The newest failure, for a menu item that opens it. */
  latest: Pick<WebhookAlert, 'webhookId' | 'environment' | 'url' | 'failedAt'> | null;
}

/** The subset of Electron's Notification class used here (the real one is passed in; tests pass a stand-in). */
export interface NotificationClass {
  new (options: NotificationConstructorOptions): Pick<ElectronNotification, 'show' | 'on'>;
  isSupported(): boolean;
}

type ShownNotification = Pick<ElectronNotification, 'show' | 'on'>;
// A notification nothing refers to may be garbage-collected while it is still on screen, and then its click does
// nothing. Each shown one is held here until it is clicked, closed or fails to show.
const shown = new Set<ShownNotification>();

/** How many notifications are held (shown, not yet clicked, closed or failed); for tests. */
export function heldNotificationCount(): number {
  return shown.size;
}

export interface WebhookAlertsOptions {
  /** The running service's dependencies (RunningService.deps). */
  deps: CoreDeps;
  Notification: NotificationClass;
  setTrayState(state: WebhookTrayState): void;
  /** Clicking the notification: show the window on that webhook. */
  openWebhook(webhookId: string, environment: 'sandbox' | 'live'): void;
  /**
   * How often the tray state is re-read from the store, so a webhook re-enabled from the web console or the CLI
   * clears it too (one small query). 0 disables; the lead may instead call refresh() on live change events.
   */
  refreshMs?: number;
}

export interface WebhookAlerts {
  /** Re-reads the open failures and updates the tray (a store that cannot be read is logged, never thrown). */
  refresh(): Promise<void>;
  stop(): void;
}

export function webhookTrayState(alerts: readonly WebhookAlert[]): WebhookTrayState {
  const latest = alerts[0];
  return {
    failed: alerts.length,
    label: alerts.length === 0 ? null : alerts.length === 1 ? '1 webhook failed' : `${alerts.length} webhooks failed`,
    latest: latest ? { webhookId: latest.webhookId, environment: latest.environment, url: latest.url, failedAt: latest.failedAt } : null,
  };
}

export function notificationText(e: WebhookFailedEvent): { title: string; body: string } {
  const why = e.lastError ?? (e.lastStatusCode !== null ? `HTTP ${e.lastStatusCode}` : 'no answer');
  const dropped = e.droppedDeliveries === 0 ? 'No other delivery was pending.' : `${e.droppedDeliveries} pending ${e.droppedDeliveries === 1 ? 'delivery' : 'deliveries'} dropped.`;
  return {
    title: `Webhook failed (${e.environment})`,
    body: `${e.description ? `${e.description} — ` : ''}${e.url}\nLast error: ${why}. ${dropped} New events are not sent until you re-enable or recover it.`,
  };
}

export function startWebhookAlerts(o: WebhookAlertsOptions): WebhookAlerts {
  let last = '';
  let stopped = false;
  /** Refreshes started so far: only the latest one's answer is shown (an older read may finish after it). */
  let started = 0;
  const refresh = async (): Promise<void> => {
    const mine = ++started;
    let state: WebhookTrayState;
    try {
      state = webhookTrayState(await listWebhookAlerts(o.deps, null));
    } catch (err) {
      o.deps.log.warn({ err: String(err) }, 'webhook alerts: could not read the store');
      return;
    }
    if (stopped || mine !== started) return;
    const key = JSON.stringify(state);
    if (key === last) return;
    last = key;
    o.setTrayState(state);
  };
  // Fire and forget (a timer, an event listener): a tray that throws is logged, never an unhandled rejection.
  const refreshInBackground = (): void =>
    void refresh().catch((err: unknown) => o.deps.log.warn({ err: String(err) }, 'webhook alerts: the tray could not be updated'));
  const unsubscribe = onWebhookFailed(o.deps, (e) => {
    refreshInBackground();
    if (!o.Notification.isSupported()) return;
    const n = new o.Notification({ ...notificationText(e), urgency: 'critical' });
    const release = () => void shown.delete(n);
    n.on('click', () => {
      release();
      o.openWebhook(e.webhookId, e.environment);
    });
    n.on('close', release);
    n.on('failed', release);
    shown.add(n);
    n.show();
  });
  const timer = o.refreshMs === 0 ? null : setInterval(refreshInBackground, o.refreshMs ?? 15_000);
  timer?.unref?.();
  refreshInBackground();
  return {
    refresh,
    stop: () => {
      stopped = true;
      unsubscribe();
      if (timer) clearInterval(timer);
    },
  };
}
