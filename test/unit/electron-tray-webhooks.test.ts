// The tray says when webhooks failed (issue 14 item 2): a first menu item that opens the newest failed webhook,
// and the tooltip names how many; nothing changes while none failed.
import { describe, expect, it, vi } from 'vitest';
import { trayMenuTemplate, trayTooltip, type ListenerState } from '../../src-main/electron/tray-menu';

const listening: ListenerState = { kind: 'listening', apiBaseUrl: 'http://127.0.0.1:4010/api/v1' };
const actions = () => ({ openConsole: vi.fn(), copyApiUrl: vi.fn(), showListenerError: vi.fn(), quit: vi.fn(), openWebhook: vi.fn() });

describe('tray: failed webhooks', () => {
  it('adds a first item that opens the newest failed webhook, and says so in the tooltip', () => {
    const a = actions();
    const items = trayMenuTemplate(listening, a, { label: '2 webhooks failed', latest: { webhookId: 'whk_1', environment: 'live' } });
    expect(items[0]).toMatchObject({ id: 'webhooks-failed', label: '⚠ 2 webhooks failed — open' });
    (items[0]!.click as () => void)();
    expect(a.openWebhook).toHaveBeenCalledWith('whk_1', 'live');
    expect(trayTooltip(listening, { label: '2 webhooks failed', latest: null })).toBe('Verification Console — API listening at http://127.0.0.1:4010/api/v1 — 2 webhooks failed');
  });

  it('shows nothing extra when no webhook failed', () => {
    const items = trayMenuTemplate(listening, actions(), { label: null, latest: null });
    expect(items.map((i) => i.id)).not.toContain('webhooks-failed');
    expect(trayTooltip(listening, null)).toBe('Verification Console — API listening at http://127.0.0.1:4010/api/v1');
  });
});
