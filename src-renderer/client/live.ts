// The console's live event subscription over whichever door the page was opened through: the Electron preload's
// `subscribe`, or the web console's Server-Sent Events stream (/console/events) with resume after a drop.
import type { LiveEvent, LiveMessage } from '../../src-shared/live-events';
import { LIVE_STREAM_PATH } from '../../src-shared/live-events';

type Listener = (m: LiveMessage) => void;
const listeners = new Set<Listener>();
let stop: (() => void) | null = null;

/** Calls `fn` with every live message until the returned function is called. One connection serves every listener. */
export function subscribe(fn: Listener): () => void {
  listeners.add(fn);
  stop ??= connect((m) => {
    for (const l of listeners) l(m);
  });
  return () => {
    listeners.delete(fn);
    if (listeners.size === 0 && stop) {
      stop();
      stop = null;
    }
  };
}

function connect(emit: Listener): () => void {
  if (typeof window !== 'undefined' && typeof window.vc?.subscribe === 'function') return window.vc.subscribe(emit as (m: unknown) => void);
  return connectEventSource(emit);
}

/** How long to wait before opening a new stream once the browser has given up on one; doubled per failure. */
const REOPEN_MS = 2000;
const REOPEN_MAX_MS = 30_000;

/**
 * The browser's EventSource reconnects by itself after a dropped stream and sends the last id as Last-Event-ID.
 * It gives up for good on a refused answer (the service restarting, a 5xx): then a new EventSource is opened,
 * carrying the last id as ?lastEventId= since it cannot set the header.
 */
function connectEventSource(emit: Listener): () => void {
  let lastId = '';
  let es: EventSource | null = null;
  let reopen: ReturnType<typeof setTimeout> | null = null;
  let closed = false;
  let failures = 0;
  const open = () => {
    const url = `/console/${LIVE_STREAM_PATH}${lastId ? `?lastEventId=${encodeURIComponent(lastId)}` : ''}`;
    const source = new EventSource(url);
    es = source;
    const track = (e: MessageEvent) => {
      if (e.lastEventId) lastId = e.lastEventId;
    };
    source.addEventListener('hello', track);
    source.onopen = () => {
      failures = 0;
    };
    source.addEventListener('change', (e: MessageEvent<string>) => {
      track(e);
      try {
        emit({ type: 'event', event: JSON.parse(e.data) as LiveEvent });
      } catch {
        // A frame that is not an event is ignored; the next reset or refresh covers it.
      }
    });
    source.addEventListener('reset', (e: MessageEvent) => {
      track(e);
      emit({ type: 'reset' });
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED && !closed && es === source) {
        reopen = setTimeout(open, Math.min(REOPEN_MAX_MS, REOPEN_MS * 2 ** failures));
        failures += 1;
      }
    };
  };
  // Offline (a laptop going to sleep, a network change): drop the stream; back online, resume at once from the
  // last id instead of waiting out the browser's retry.
  const offline = () => {
    if (reopen) clearTimeout(reopen);
    reopen = null;
    es?.close();
    es = null;
  };
  const online = () => {
    if (closed) return;
    offline();
    open();
  };
  window.addEventListener('offline', offline);
  window.addEventListener('online', online);
  open();
  return () => {
    closed = true;
    window.removeEventListener('offline', offline);
    window.removeEventListener('online', online);
    if (reopen) clearTimeout(reopen);
    es?.close();
  };
}
