// Live updates in the renderer: the service's change events (client/live.ts) become version counters per thing a
// view shows. A view reads the counter of what it displays and re-fetches when it moves; a reset (events were
// missed) moves every counter. Bursts (a batch completing hundreds of checks) are applied at most every 150 ms.
import { useCallback, useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import type { LiveEvent, LiveMessage } from '../../src-shared/live-events';
import { subscribe } from '../client/live';
import { LivePacer } from './live-pacer';

/**
 * What a view can follow: a list ('verifications', 'deliveries', 'webhooks'), one thing ('verification:<id>',
 * 'deliveries:<webhookId>'), the wallet, and the dashboard (anything its figures count).
 */
export type LiveKey = 'verifications' | 'deliveries' | 'webhooks' | 'wallet' | 'dashboard' | `verification:${string}` | `deliveries:${string}` | `webhook:${string}`;

interface LiveState {
  /** Bumped for every key an event touched; a reset bumps `epoch`, which every key includes. */
  versions: Record<string, number>;
  epoch: number;
  /** Events applied so far (for tests and the status line). */
  applied: number;
  apply(messages: LiveMessage[]): void;
}

/** Per-id keys kept at most; older ids fall out (a view still open on one re-fetches on its next change anyway). */
const MAX_KEYS = 2000;

export function keysOf(e: LiveEvent): LiveKey[] {
  const keys: LiveKey[] = [];
  if (e.kind.startsWith('verification.')) {
    keys.push('verifications', 'dashboard');
    if (e.ids.verificationId) keys.push(`verification:${e.ids.verificationId}`);
  } else if (e.kind.startsWith('delivery.')) {
    keys.push('deliveries', 'dashboard');
    if (e.ids.webhookId) keys.push(`deliveries:${e.ids.webhookId}`);
  } else if (e.kind === 'webhook.updated') {
    keys.push('webhooks', 'dashboard');
    if (e.ids.webhookId) keys.push(`webhook:${e.ids.webhookId}`);
  } else if (e.kind === 'wallet.updated') {
    keys.push('wallet');
  }
  return keys;
}

export const useLive = create<LiveState>()((set) => ({
  versions: {},
  epoch: 0,
  applied: 0,
  apply: (messages) =>
    set((s) => {
      if (messages.some((m) => m.type === 'reset')) return { versions: {}, epoch: s.epoch + 1, applied: s.applied + messages.length };
      const versions = { ...s.versions };
      for (const m of messages) {
        if (m.type !== 'event') continue;
        for (const k of keysOf(m.event)) {
          delete versions[k];
          versions[k] = (s.versions[k] ?? 0) + 1;
        }
      }
      const names = Object.keys(versions);
      for (const k of names.slice(0, Math.max(0, names.length - MAX_KEYS))) delete versions[k];
      return { versions, applied: s.applied + messages.length };
    }),
}));

/**
 * A number that changes whenever `key` changed on the service (or events were missed); 0 until then. Put it in the
 * dependencies of the effect that loads what the view shows. `null` follows nothing.
 */
export function useLiveVersion(key: LiveKey | null): number {
  return useLive((s) => (key === null ? 0 : s.epoch * 1_000_000 + (s.versions[key] ?? 0)));
}

/**
 * useLiveVersion for a view whose reload costs the service more than a lookup (a summary, a counted list): the number
 * moves at once after a quiet spell, otherwise at most every `minGapMs` — and, for a view that reports its loads
 * through `track`, no sooner than four times its last load's duration after that load (live-pacer.ts). Changes
 * meanwhile are merged; the last one always gets its reload.
 */
export function usePacedLiveVersion(key: LiveKey | null, minGapMs = 1_000): { version: number; track: <T>(load: Promise<T>) => Promise<T> } {
  const live = useLiveVersion(key);
  const [version, setVersion] = useState(live);
  const pacer = useRef<LivePacer | null>(null);
  // Made in an effect (not during render), so that a mount run twice (React's strict mode) ends with a live one.
  useEffect(() => {
    const p = new LivePacer({ minGapMs });
    pacer.current = p;
    return () => {
      p.dispose();
      if (pacer.current === p) pacer.current = null;
    };
  }, [minGapMs]);
  useEffect(() => {
    if (live === version) return;
    if (pacer.current) pacer.current.change(() => setVersion(live));
    else setVersion(live);
  }, [live]); // (version is read, not followed: only a move of the live number is a change)
  const track = useCallback(<T,>(load: Promise<T>): Promise<T> => (pacer.current ? pacer.current.track(load) : load), []);
  return { version, track };
}

/** Connects the console to the service's change events while `enabled` (once the console is set up). */
export function useLiveConnection(enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    let queue: LiveMessage[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const batch = queue;
      queue = [];
      useLive.getState().apply(batch);
    };
    const off = subscribe((m) => {
      queue.push(m);
      // The first message of a burst is applied at once; the rest of the burst waits for one flush.
      timer ??= setTimeout(flush, queue.length === 1 ? 0 : 150);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [enabled]);
}
