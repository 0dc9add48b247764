// The API listener's state as the tray and the application menu show it, and their menu templates (pure: no
// electron import, so tests check the labels and actions).
import type { MenuItemConstructorOptions } from 'electron';

export type ListenerState =
  | { kind: 'listening'; apiBaseUrl: string }
  | { kind: 'not-listening'; reason: 'port-in-use' | 'not-allowed' | 'error'; message: string };

/** Classifies a start-up failure of the listener (service.ts throws ListenError with the OS reason in the text). */
export function listenerFailure(err: unknown): ListenerState {
  const message = err instanceof Error ? err.message : String(err);
  const reason = /already in use|EADDRINUSE/i.test(message) ? 'port-in-use' : /not allowed|EACCES/i.test(message) ? 'not-allowed' : 'error';
  return { kind: 'not-listening', reason, message };
}

export function listenerLabel(s: ListenerState): string {
  if (s.kind === 'listening') return `API listening at ${s.apiBaseUrl}`;
  return s.reason === 'port-in-use' ? 'API not listening: port in use' : s.reason === 'not-allowed' ? 'API not listening: port not allowed' : 'API not listening';
}

/** The hint shown with a failed listener: where to fix it. */
export const LISTENER_HINT = 'The console works without the API listener. Change the port in Settings → API listener, then restart the app.';

/** Failed webhooks as the tray shows them (src-main/electron/webhook-alerts.ts computes it). */
export interface TrayWebhooks {
  label: string | null;
  latest: { webhookId: string; environment: 'sandbox' | 'live' } | null;
}

export interface TrayActions {
  openConsole(): void;
  /** Opens the console on one webhook (a failed one, from its menu item). */
  openWebhook?(webhookId: string, environment: 'sandbox' | 'live'): void;
  copyApiUrl(url: string): void;
  showListenerError(): void;
  quit(): void;
}

export function trayMenuTemplate(s: ListenerState, a: TrayActions, webhooks: TrayWebhooks | null = null): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [{ id: 'listener-state', label: listenerLabel(s), enabled: false }];
  // A failed webhook is the first thing the menu says (issue 14: a failure nobody misses).
  if (webhooks?.label && webhooks.latest) {
    const latest = webhooks.latest;
    items.unshift({ id: 'webhooks-failed', label: `⚠ ${webhooks.label} — open`, click: () => a.openWebhook?.(latest.webhookId, latest.environment) });
  }
  if (s.kind === 'not-listening') items.push({ id: 'listener-error', label: 'Why is the API not listening…', click: () => a.showListenerError() });
  items.push(
    { type: 'separator' },
    { id: 'open-console', label: 'Open console', click: () => a.openConsole() },
    {
      id: 'copy-api-url',
      label: 'Copy API URL',
      enabled: s.kind === 'listening',
      click: () => {
        if (s.kind === 'listening') a.copyApiUrl(s.apiBaseUrl);
      },
    },
    { type: 'separator' },
    { id: 'quit', label: 'Quit', click: () => a.quit() },
  );
  return items;
}

export function trayTooltip(s: ListenerState, webhooks: TrayWebhooks | null = null): string {
  return `Verification Console — ${listenerLabel(s)}${webhooks?.label ? ` — ${webhooks.label}` : ''}`;
}

/**
 * The application menu: on macOS the standard app menu first (About, Hide, Hide Others, Quit ⌘Q); then Service (the
 * tray's items), Edit, View and Window. A packaged app's View menu has zoom and full screen only — no Reload, no
 * Developer Tools; the development build keeps Electron's full View menu.
 */
export function applicationMenuTemplate(service: MenuItemConstructorOptions[], o: { platform: string; packaged: boolean }): MenuItemConstructorOptions[] {
  const view: MenuItemConstructorOptions = o.packaged
    ? {
        label: 'View',
        submenu: [{ role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
      }
    : { role: 'viewMenu' };
  return [
    ...(o.platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { label: 'Service', submenu: service },
    { role: 'editMenu' },
    view,
    { role: 'windowMenu' },
  ];
}
