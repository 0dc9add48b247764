// Pure helpers of the delivery timeline: how an attempt turned out, and where each attempt sits on a delivery's
// time axis (kept free of React so they are unit-tested).
import type { DeliveryAttempt, DeliveryOrigin, DropReason } from '../../../src-shared/schemas/webhooks';

export type AttemptOutcome = 'success' | 'http-error' | 'no-response';

/** Any 2xx counts as delivered (interface §4.3); no status code means the connection itself failed. */
export function attemptOutcome(a: Pick<DeliveryAttempt, 'statusCode'>): AttemptOutcome {
  if (a.statusCode === null) return 'no-response';
  return a.statusCode >= 200 && a.statusCode < 300 ? 'success' : 'http-error';
}

export const OUTCOME_COLOR: Record<AttemptOutcome, string> = { success: 'green', 'http-error': 'red', 'no-response': 'orange' };
export const OUTCOME_LABEL: Record<AttemptOutcome, string> = {
  success: 'Delivered (2xx)',
  'http-error': 'Refused (non-2xx)',
  'no-response': 'No response (connection error or timeout)',
};

export interface TrackPoint {
  /** Index in the attempt log, or -1 for the next scheduled attempt. */
  index: number;
  /** 0..100, left to right. */
  percent: number;
  at: number;
}

export interface Track {
  start: number;
  end: number;
  points: TrackPoint[];
  /** Where the next scheduled attempt will happen, when one is pending. */
  next: TrackPoint | null;
}

function ms(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/**
 * Lays a delivery's attempts out from its creation to its last event (an attempt's end or the next scheduled
 * attempt). Retries wait 1, 3, 9 and 27 minutes, so a linear axis shows the back-off as growing gaps.
 */
export function buildTrack(
  createdAt: string,
  attempts: readonly Pick<DeliveryAttempt, 'startedAt' | 'durationMs'>[],
  nextAttemptAt: string | null,
): Track {
  const created = ms(createdAt);
  const times = attempts.map((a) => ms(a.startedAt));
  const known = times.filter((t): t is number => t !== null);
  const next = ms(nextAttemptAt);
  const start = Math.min(created ?? Infinity, ...known, next ?? Infinity);
  const ends = attempts.map((a, i) => (times[i] ?? start) + Math.max(0, a.durationMs));
  const end = Math.max(start, ...ends, next ?? -Infinity);
  const span = end - start;
  const place = (t: number) => (span <= 0 ? 50 : ((t - start) / span) * 100);
  if (!Number.isFinite(start)) return { start: 0, end: 0, points: [], next: null };
  return {
    start,
    end,
    points: attempts.map((_, i) => {
      const at = times[i] ?? start;
      return { index: i, percent: place(at), at };
    }),
    next: next === null ? null : { index: -1, percent: place(next), at: next },
  };
}

export function formatDuration(msValue: number): string {
  if (msValue < 1000) return `${Math.round(msValue)} ms`;
  const s = msValue / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

/**
 * The `to` of a replay: omitted for the webhook's own URL, the typed URL for a local receiver; null when the
 * local receiver is chosen but empty, so the send never silently falls back to the production endpoint.
 */
export function replayTarget(mode: 'webhook' | 'local', localUrl: string): { to?: string } | null {
  if (mode === 'webhook') return {};
  const to = localUrl.trim();
  return to ? { to } : null;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Mirrors the service's local-receiver rule so the form can say what is wrong before asking; null when fine. */
export function localReceiverProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return 'Enter a full URL, e.g. http://localhost:3000/hooks.';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Use an http:// or https:// URL.';
  if (u.username || u.password) return 'Leave user names and passwords out of the URL.';
  if (!LOOPBACK_HOSTS.has(u.hostname)) return 'A local receiver must be on localhost, 127.0.0.1 or [::1].';
  return null;
}

/** The error text worth showing next to a status code: nothing when it only repeats "HTTP <code>". */
export function extraError(statusCode: number | null, error: string | null): string | null {
  if (!error) return null;
  return statusCode !== null && error.trim() === `HTTP ${statusCode}` ? null : error;
}

/** A delivery its endpoint stopped (not its own attempts) says so, never looking pending or cut short. */
export const DROP_LABEL: Record<DropReason, string> = {
  webhook_failed: 'dropped — webhook failed',
  webhook_paused: 'dropped — webhook paused',
  webhook_deleted: 'dropped — webhook deleted',
};

export const ORIGIN_LABEL: Record<DeliveryOrigin, string | null> = { event: null, recovery: 'recovery', trigger: 'sample' };

/**
 * What a delivery's badge says: its status wins over a drop. A dropped delivery that a later manual retry (or
 * recovery) delivered is `success` and reads "Delivered"; only a delivery that is still not delivered shows the
 * drop label. `dropped` says which of the two the badge is.
 */
export function deliveryFate(d: { status: string; dropReason: DropReason | null }): { dropped: DropReason | null } {
  return { dropped: d.status !== 'success' && d.dropReason ? d.dropReason : null };
}

/**
 * How many of the delivery's own attempts were made before its endpoint stopped it: the scheduled and manual
 * attempts that started no later than `droppedAt` (a manual retry after the drop is not one of them; replays and
 * forwards never count).
 */
export function attemptsBeforeDrop(
  droppedAt: string,
  attemptLog: readonly Pick<DeliveryAttempt, 'kind' | 'startedAt'>[],
): number {
  const cut = Date.parse(droppedAt);
  return attemptLog.filter((a) => (a.kind === 'scheduled' || a.kind === 'manual') && Date.parse(a.startedAt) <= cut).length;
}
