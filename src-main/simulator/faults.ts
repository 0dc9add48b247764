// Fault injection for the upstream simulator: parses `latency=MS`, `timeout`, `status=500`, `429` /
// `rate-limit=S`, `rate-limit-date=S`, `malformed`, `reset`, `late=MS` (header X-Sim-Fault, --fault, POST /_sim/faults).

export type Fault =
  | { type: 'latency'; ms: number }
  | { type: 'timeout' }
  | { type: 'status'; status: 500 | 502 | 503 }
  /** `asDate`: Retry-After as an HTTP-date (now + the seconds) instead of delay-seconds. */
  | { type: 'rate-limit'; retryAfterSeconds: number; asDate?: boolean }
  /** `too-large`: valid JSON of the right shape, but over the 1 MB a client reads. */
  | { type: 'malformed'; variant: 'not-json' | 'wrong-shape' | 'too-large' }
  | { type: 'reset' }
  | { type: 'late'; ms: number };

/** A fault as text (the wire form) or already parsed. */
export type FaultSpec = string | Fault;

export class FaultParseError extends Error {}

const MAX_DELAY_MS = 10 * 60_000;

function ms(value: string | undefined, text: string): number {
  const n = Number(value);
  if (value === undefined || value === '' || !Number.isInteger(n) || n < 0 || n > MAX_DELAY_MS) {
    throw new FaultParseError(`fault "${text}": expected a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`);
  }
  return n;
}

export function parseFault(spec: FaultSpec): Fault {
  if (typeof spec !== 'string') return parseFault(formatFault(spec));
  const text = spec.trim();
  const eq = text.indexOf('=');
  const name = (eq === -1 ? text : text.slice(0, eq)).toLowerCase();
  const value = eq === -1 ? undefined : text.slice(eq + 1).trim();
  switch (name) {
    case 'latency':
      return { type: 'latency', ms: ms(value, text) };
    case 'late':
      return { type: 'late', ms: ms(value, text) };
    case 'timeout':
      return { type: 'timeout' };
    case 'reset':
      return { type: 'reset' };
    case 'status': {
      const status = Number(value);
      if (status !== 500 && status !== 502 && status !== 503) throw new FaultParseError(`fault "${text}": status must be 500, 502 or 503`);
      return { type: 'status', status };
    }
    case '429':
    case 'rate-limit':
    case 'rate-limit-date': {
      const s = value === undefined ? 1 : Number(value);
      if (!Number.isInteger(s) || s < 0 || s > 3600) throw new FaultParseError(`fault "${text}": Retry-After must be 0 to 3600 seconds`);
      return name === 'rate-limit-date' ? { type: 'rate-limit', retryAfterSeconds: s, asDate: true } : { type: 'rate-limit', retryAfterSeconds: s };
    }
    case 'malformed': {
      if (value === undefined || value === 'json' || value === 'not-json') return { type: 'malformed', variant: 'not-json' };
      if (value === 'shape' || value === 'wrong-shape') return { type: 'malformed', variant: 'wrong-shape' };
      if (value === 'large' || value === 'too-large') return { type: 'malformed', variant: 'too-large' };
      throw new FaultParseError(`fault "${text}": malformed takes no value, or =json / =shape / =large`);
    }
    default:
      throw new FaultParseError(
        `unknown fault "${text}": expected latency=MS, timeout, status=500|502|503, 429, rate-limit=S, rate-limit-date=S, malformed[=json|shape|large], reset or late=MS`,
      );
  }
}

/** The canonical text of a fault, as the request log shows it. */
export function formatFault(f: Fault): string {
  switch (f.type) {
    case 'latency':
    case 'late':
      return `${f.type}=${f.ms}`;
    case 'timeout':
    case 'reset':
      return f.type;
    case 'status':
      return `status=${f.status}`;
    case 'rate-limit':
      return `${f.asDate ? 'rate-limit-date' : 'rate-limit'}=${f.retryAfterSeconds}`;
    case 'malformed':
      return f.variant === 'not-json' ? 'malformed' : f.variant === 'wrong-shape' ? 'malformed=shape' : 'malformed=large';
  }
}

/** Whether the upstream "ran the check" before the fault hit: rejections (5xx, 429, reset) never reach it. */
export function faultRunsCheck(f: Fault | null): boolean {
  return f === null || f.type === 'latency' || f.type === 'late' || f.type === 'timeout' || f.type === 'malformed';
}
