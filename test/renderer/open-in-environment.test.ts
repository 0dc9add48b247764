// Palette "Open by id" (report #2) and Audit target links (report #3) of the other environment: nothing moves
// before the switch (live asks first); confirming opens the item there, declining leaves the console where it was.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useConsole } from '../../src-renderer/app/store';
import { openLookup } from '../../src-renderer/features/palette/open-by-id';

beforeEach(() => useConsole.setState({ environment: 'sandbox', confirmingLive: false, pendingOpen: null }));

describe('openLookup in the other environment', () => {
  it('does not navigate before the live switch is confirmed, then hands the address over', () => {
    const navigate = vi.fn();
    openLookup({ kind: 'webhook', id: 'whk_1', environment: 'live' } as never, navigate);
    expect(navigate).not.toHaveBeenCalled();
    expect(useConsole.getState()).toMatchObject({ environment: 'sandbox', confirmingLive: true, pendingOpen: { environment: 'live', path: '/webhooks/whk_1' } });
    useConsole.getState().resolveLive(true);
    expect(useConsole.getState()).toMatchObject({ environment: 'live', pendingOpen: { environment: 'live', path: '/webhooks/whk_1' } });
  });

  it('forgets the address when the user stays in sandbox', () => {
    const navigate = vi.fn();
    openLookup({ kind: 'verification', id: 'ver_1', environment: 'live' } as never, navigate);
    useConsole.getState().resolveLive(false);
    expect(navigate).not.toHaveBeenCalled();
    expect(useConsole.getState()).toMatchObject({ environment: 'sandbox', confirmingLive: false, pendingOpen: null });
  });

  it('switches to sandbox at once and opens the same environment directly', () => {
    useConsole.setState({ environment: 'live' });
    const navigate = vi.fn();
    openLookup({ kind: 'verification', id: 'ver_2', environment: 'sandbox' } as never, navigate);
    expect(useConsole.getState()).toMatchObject({ environment: 'sandbox', pendingOpen: { environment: 'sandbox', path: '/history/ver_2' } });
    useConsole.setState({ pendingOpen: null });
    openLookup({ kind: 'verification', id: 'ver_3', environment: 'sandbox' } as never, navigate);
    expect(navigate).toHaveBeenCalledWith('/history/ver_3');
  });
});
