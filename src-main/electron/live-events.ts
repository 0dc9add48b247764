// Forwards the store's live change messages to the console window over the contract's event channel
// (src-shared/live-events.ts), for the console's organization only — the Electron counterpart of the web
// console's /console/events stream. A renderer that reloads starts from a fresh fetch, so no replay is needed.
import type { WebContents } from 'electron';
import { LIVE_CHANNEL } from '../../src-shared/channel-names';
import type { LiveMessage } from '../../src-shared/live-events';
import { liveEventsOf } from '../core/events/live-events';
import { firstOrganizationId } from '../core/orgs/organizations';
import type { RunningService } from '../service';

/**
 * Starts forwarding; returns the function that stops it. `target()` is the window's contents (null while there is
 * no window). The organization is the console's (the first one), looked up as events come: it may be set up later.
 */
export function forwardLiveEvents(service: RunningService, target: () => WebContents | null): () => void {
  const hub = liveEventsOf(service.deps.db);
  if (!hub) return () => {};
  let org: string | null = null;
  const organization = () => (org ??= firstOrganizationId(service.deps));
  return hub.subscribe(organization, (m: LiveMessage) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(LIVE_CHANNEL, m);
  });
}
