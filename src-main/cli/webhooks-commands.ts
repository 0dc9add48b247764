// `vconsole webhooks listen` (a local receiver that checks signatures and can forward) and `vconsole webhooks
// replay` (send a stored delivery again). Argument parsing and the work are separate so the CLI wires them in.
import { request } from 'undici';
import type { CoreRuntime } from '../core/runtime';
import { deliveryScope, replayDelivery } from '../core/webhooks/deliveries';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../core/webhooks/test-receiver';
import type { ReplayResult } from '../../src-shared/schemas/webhooks';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: Output = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ListenArgs {
  port: number;
  secret?: string;
  forwardTo?: string;
}

export interface ReplayArgs {
  deliveryId: string;
  to?: string;
  resign: boolean;
}

function valueOf(argv: string[], i: number, flag: string): string {
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
  return v;
}

/** Parses the arguments after `webhooks listen`. */
export function parseListenArgs(argv: string[]): ListenArgs {
  const a: ListenArgs = { port: 0 };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--port') {
      const n = Number(valueOf(argv, i++, f));
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError('--port must be 0 to 65535');
      a.port = n;
    } else if (f === '--secret') a.secret = valueOf(argv, i++, f);
    else if (f === '--forward-to') a.forwardTo = valueOf(argv, i++, f);
    else throw new UsageError(`unknown option ${f}`);
  }
  if (a.forwardTo !== undefined) {
    try {
      new URL(a.forwardTo);
    } catch {
      throw new UsageError('--forward-to must be a URL');
    }
  }
  return a;
}

/** Parses the arguments after `webhooks replay`. */
export function parseReplayArgs(argv: string[]): ReplayArgs {
  let deliveryId: string | undefined;
  let to: string | undefined;
  let resign = false;
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--to') to = valueOf(argv, i++, f);
    else if (f === '--resign') resign = true;
    else if (f.startsWith('--')) throw new UsageError(`unknown option ${f}`);
    else if (deliveryId === undefined) deliveryId = f;
    else throw new UsageError(`unexpected argument ${f}`);
  }
  if (!deliveryId || !/^del_[0-9a-f]+$/.test(deliveryId)) throw new UsageError('usage: vconsole webhooks replay DELIVERY_ID [--to URL] [--resign]');
  return { deliveryId, resign, ...(to !== undefined ? { to } : {}) };
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function forward(target: string, req: ReceivedRequest): Promise<string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  try {
    const res = await request(target, { method: 'POST', headers, body: req.rawBody, headersTimeout: 10_000, bodyTimeout: 10_000 });
    await res.body.dump();
    return `forwarded → ${res.statusCode}`;
  } catch (err) {
    return `forward failed: ${(err as Error).message}`;
  }
}

function verdict(v: boolean | null): string {
  return v === null ? 'unchecked' : v ? 'valid' : 'INVALID';
}

/**
 * Runs a local receiver on 127.0.0.1 that prints each delivery with both signature verdicts (when a secret is
 * given) and optionally forwards the exact bytes and headers to another URL. Invalid signatures get a 401, as a
 * real receiver should answer (interface §6 rule 3).
 */
export async function webhooksListen(args: ListenArgs, io: Output = consoleOutput): Promise<TestReceiver> {
  const secrets = args.secret ? [args.secret] : [];
  const receiver = await startTestReceiver({
    port: args.port,
    secrets,
    responder: async (req) => {
      const bad = secrets.length > 0 && !(req.xSignatureValid && req.standardSignatureValid);
      const id = req.headers['x-delivery-id'] ?? '-';
      const event = req.headers['x-event-type'] ?? '-';
      let line = `${new Date(req.receivedAtMs).toISOString()} ${req.method} ${req.path} ${String(event)} ${String(id)} X-Signature ${verdict(req.xSignatureValid)}, webhook-signature ${verdict(req.standardSignatureValid)}`;
      if (args.forwardTo) line += `; ${await forward(args.forwardTo, req)}`;
      io.out(line);
      return bad ? { status: 401, body: 'invalid signature' } : { status: 200, body: 'ok' };
    },
  });
  io.out(`Listening for webhook deliveries on ${receiver.url}${secrets.length ? ' (verifying signatures)' : ''}`);
  if (args.forwardTo) io.out(`Forwarding each delivery to ${args.forwardTo}`);
  return receiver;
}

/** Replays a stored delivery as the installation's owner; the exit status is 0 on a 2xx answer. */
export async function webhooksReplay(rt: CoreRuntime, args: ReplayArgs, io: Output = consoleOutput): Promise<{ exitCode: number; result: ReplayResult }> {
  const scope = deliveryScope(rt.deps, args.deliveryId);
  const result = await replayDelivery(rt, scope, args.deliveryId, { target: args.to ?? 'webhook', resign: args.resign });
  const what = result.ok ? `${result.statusCode}` : result.statusCode !== null ? `${result.statusCode} (${result.error ?? 'failed'})` : (result.error ?? 'failed');
  io.out(`Replayed ${result.deliveryId} to ${result.url} with ${result.signature} signatures: ${what} in ${result.durationMs} ms`);
  return { exitCode: result.ok ? 0 : 1, result };
}
