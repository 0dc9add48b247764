// Opt-in event-loop delay report of the serving process (benchmark 7): with VC_ELD_REPORT=1 the service samples its
// event-loop delay and prints the histogram to stderr on SIGUSR2 (then starts a new one) and once at exit.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * Milliseconds of delay beyond the sampling interval: Node 20's histogram records the whole time between two
 * samples (an idle loop reads as the resolution, 10 ms), so the resolution is taken off every figure.
 */
export interface EventLoopDelayReport {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Samples taken (one per `resolution` ms of an idle loop; fewer when the loop is blocked). */
  samples: number;
  /** Milliseconds covered by this report. */
  windowMs: number;
}

/** The line a benchmark looks for: `VC_ELD <json>` (and `VC_ELD ready` once sampling runs). */
export const REPORT_PREFIX = 'VC_ELD';

/** 10 ms: the perf_hooks default; a timer every millisecond would itself load the loop being measured. */
const RESOLUTION_MS = 10;

const delayMs = (ns: number, resolutionMs: number): number => Math.max(0, Math.round(ns / 1e4) / 100 - resolutionMs);

export function summariseHistogram(h: IntervalHistogram, windowMs: number, resolutionMs = RESOLUTION_MS): EventLoopDelayReport {
  const empty = h.count === 0;
  const d = (ns: number): number => (empty ? 0 : Math.round(delayMs(ns, resolutionMs) * 100) / 100);
  return {
    p50: d(h.percentile(50)),
    p90: d(h.percentile(90)),
    p99: d(h.percentile(99)),
    max: d(h.max),
    mean: d(h.mean),
    samples: h.count,
    windowMs: Math.round(windowMs),
  };
}

let active: (() => void) | null = null;

/**
 * Starts sampling when `env.VC_ELD_REPORT` is `1` (once per process, however many services it starts); returns a
 * stop function, or null when not asked for. SIGUSR2 is taken only then: without a listener it would end Node.
 */
export function startEventLoopReport(
  env: Record<string, string | undefined> = process.env,
  write: (line: string) => void = (line) => process.stderr.write(line),
): (() => void) | null {
  if (env['VC_ELD_REPORT'] !== '1') return null;
  if (active) return active;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  let since = performance.now();
  const report = (): void => {
    const now = performance.now();
    write(`${REPORT_PREFIX} ${JSON.stringify(summariseHistogram(h, now - since))}\n`);
    h.reset();
    since = now;
  };
  const onExit = (): void => report();
  process.on('SIGUSR2', report);
  process.once('exit', onExit);
  write(`${REPORT_PREFIX} ready\n`);
  active = () => {
    h.disable();
    process.off('SIGUSR2', report);
    process.off('exit', onExit);
    active = null;
  };
  return active;
}
