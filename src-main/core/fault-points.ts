// Crash points for the reliability suites (docs/reliability.md): VC_FAULT_POINT=<point> makes the process SIGKILL
// itself there (on the VC_FAULT_AFTER-th pass, default the first), so a test can crash it at an exact moment.
export type FaultPoint = 'after-charge' | 'after-claim' | 'after-upstream' | 'after-commit-before-response' | 'before-audit-entry';

export const FAULT_POINTS: readonly FaultPoint[] = ['after-charge', 'after-claim', 'after-upstream', 'after-commit-before-response', 'before-audit-entry'];

/** The armed point, read once at load; null (the normal case) turns every hook into a call to an empty function. */
export function readFaultConfig(env: Record<string, string | undefined>): { point: FaultPoint; after: number } | null {
  const point = env['VC_FAULT_POINT'];
  if (point === undefined || point === '') return null;
  if (!(FAULT_POINTS as readonly string[]).includes(point)) {
    // A typo would silently turn a crash test into a pass: refuse to start instead.
    throw new Error(`VC_FAULT_POINT must be one of ${FAULT_POINTS.join(', ')}; got ${point}`);
  }
  const after = env['VC_FAULT_AFTER'] === undefined ? 1 : Number(env['VC_FAULT_AFTER']);
  if (!Number.isInteger(after) || after < 1) throw new Error('VC_FAULT_AFTER must be a positive integer');
  return { point: point as FaultPoint, after };
}

function armed(cfg: { point: FaultPoint; after: number }): (name: FaultPoint) => void {
  let passes = 0;
  return (name) => {
    if (name !== cfg.point) return;
    passes += 1;
    // SIGKILL, not exit(): no handler, no flush, no finally block runs — what a power cut or OOM kill leaves.
    if (passes >= cfg.after) process.kill(process.pid, 'SIGKILL');
  };
}

const config = readFaultConfig(process.env);

/** Marks a crash point. Does nothing unless VC_FAULT_POINT names it. */
export const faultPoint: (name: FaultPoint) => void = config === null ? () => {} : armed(config);
