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
 * no window). The organization is the console's (the first one), looked up at start and again as events come while
 * there is none (it may be set up later). The lookup reads the store (asynchronous): events that came while no
 * organization was known are not forwarded, and once it is known the window gets a reset (it fetches afresh).
 */
export function forwardLiveEvents(service: RunningService, target: () => WebContents | null): () => void {
  // The store's hub, whatever the engine (core/events/live-events.ts).
  const hub = liveEventsOf(service.deps);
  if (!hub) return () => {};
  const send = (m: LiveMessage) => {
    const contents = target();
    if (contents && !contents.isDestroyed()) contents.send(LIVE_CHANNEL, m);
  };
  let org: string | null = null;
  let looking = false;
  let missed = false;
  const lookUp = () => {
    if (looking) return;
    looking = true;
    void firstOrganizationId(service.deps).then(
      (id) => {
        looking = false;
        org = id;
        if (id !== null && missed) send({ type: 'reset' });
        if (id !== null) missed = false;
      },
      (err: unknown) => {
        looking = false;
        service.deps.log.warn({ err }, 'live events: the console organization could not be read');
      },
    );
  };
  lookUp();
  return hub.subscribe(
    () => {
      if (org === null) {
        missed = true;
        lookUp();
      }
      return org;
    },
    send,
  );
}
