// `vconsole webhooks listen` (a local receiver that checks signatures and can forward), `replay` (send a stored
// delivery again), `recover` (redeliver a period's events) and `trigger` (send a sample event).
// Argument parsing and the work are separate so the CLI wires them in.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { CoreRuntime } from '../core/runtime';
import { deliveryScope, replayDelivery } from '../core/webhooks/deliveries';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../core/webhooks/test-receiver';
import { WEBHOOK_EVENTS, type RecoveryPreview, type RecoveryRequest, type RecoveryResult, type ReplayResult, type TriggerResult, type WebhookEvent } from '../../src-shared/schemas/webhooks';
import { previewRecovery, recoverWebhook } from '../core/webhooks/recovery';
import { triggerSampleEvent } from '../core/webhooks/triggers';
import { updateWebhook, webhookScope, type Scope } from '../core/webhooks/webhooks-service';

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: Output = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Which signature a delivery must carry to be accepted (each checked against every secret given). */
export type VerifyMode = 'both' | 'x-signature' | 'webhook-signature';

export interface ListenArgs {
  port: number;
  /** Every secret to accept: --secret (repeatable) and the lines of --secrets-file, in that order. */
  secrets: string[];
  verify: VerifyMode;
  forwardTo?: string;
}

export interface ReplayArgs {
  deliveryId: string;
  to?: string;
  resign: boolean;
  /** HOST:PORT whose webhook URL rules are relaxed for this replay, as `serve --allow-webhook-host` does. */
  allowHosts?: string[];
}

/** The form `serve --allow-webhook-host` accepts. */
const ALLOW_HOST = /^[^\s/:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/;

function valueOf(argv: string[], i: number, flag: string): string {
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
  return v;
}

/** A secrets file: one `whsec_…` per line; blank lines and lines starting with # are ignored. */
export function parseSecretsFile(text: string, name: string): string[] {
  const out: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!/^whsec_\S+$/.test(line)) throw new UsageError(`${name} line ${i + 1}: expected a secret starting with whsec_`);
    out.push(line);
  });
  if (out.length === 0) throw new UsageError(`${name} holds no secret`);
  return out;
}

/** Parses the arguments after `webhooks listen`; `readFile` reads --secrets-file (injected for tests). */
export function parseListenArgs(argv: string[], readFile: (path: string) => string = (f) => readFileSync(f, 'utf8')): ListenArgs {
  const a: ListenArgs = { port: 0, secrets: [], verify: 'both' };
  const fromFiles: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--port') {
      const n = Number(valueOf(argv, i++, f));
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError('--port must be 0 to 65535');
      a.port = n;
    } else if (f === '--secret') {
      const v = valueOf(argv, i++, f);
      if (!v.startsWith('whsec_')) throw new UsageError('--secret must start with whsec_');
      a.secrets.push(v);
    } else if (f === '--secrets-file') {
      const file = valueOf(argv, i++, f);
      let text: string;
      try {
        text = readFile(file);
      } catch (e) {
        throw new UsageError(`--secrets-file ${file}: ${(e as Error).message}`);
      }
      fromFiles.push(...parseSecretsFile(text, file));
    } else if (f === '--verify') {
      const v = valueOf(argv, i++, f);
      if (v !== 'both' && v !== 'x-signature' && v !== 'webhook-signature') throw new UsageError('--verify must be both, x-signature or webhook-signature');
      a.verify = v;
    } else if (f === '--forward-to') a.forwardTo = valueOf(argv, i++, f);
    else throw new UsageError(`unknown option ${f}`);
  }
  a.secrets = [...new Set([...a.secrets, ...fromFiles])];
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
  const allowHosts: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--to') to = valueOf(argv, i++, f);
    else if (f === '--resign') resign = true;
    else if (f === '--allow-webhook-host') {
      const v = valueOf(argv, i++, f);
      if (!ALLOW_HOST.test(v)) throw new UsageError(`--allow-webhook-host expects HOST:PORT, got ${v}`);
      allowHosts.push(v);
    }
    else if (f.startsWith('--')) throw new UsageError(`unknown option ${f}`);
    else if (deliveryId === undefined) deliveryId = f;
    else throw new UsageError(`unexpected argument ${f}`);
  }
  if (!deliveryId || !/^del_[0-9a-f]+$/.test(deliveryId)) throw new UsageError('usage: vconsole webhooks replay DELIVERY_ID [--to URL] [--resign] [--allow-webhook-host HOST:PORT]');
  return { deliveryId, resign, ...(to !== undefined ? { to } : {}), ...(allowHosts.length > 0 ? { allowHosts } : {}) };
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

/** Whether a delivery is accepted under the chosen mode (signatures already checked against every secret). */
export function accepted(mode: VerifyMode, x: boolean | null, standard: boolean | null): boolean {
  if (x === null || standard === null) return true; // no secrets: nothing to check
  if (mode === 'x-signature') return x;
  if (mode === 'webhook-signature') return standard;
  return x && standard;
}

/**
 * Runs a local receiver on 127.0.0.1 that prints each delivery with both signature verdicts (when secrets are
 * given; any of them may match, per scheme, as during a rotation) and optionally forwards the exact bytes and
 * headers to another URL. Rejected deliveries get a 401, as a real receiver should answer (interface §6 rule 3).
 */
export async function webhooksListen(args: ListenArgs, io: Output = consoleOutput): Promise<TestReceiver> {
  const { secrets } = args;
  const receiver = await startTestReceiver({
    port: args.port,
    secrets,
    responder: async (req) => {
      const ok = accepted(args.verify, req.xSignatureValid, req.standardSignatureValid);
      const id = req.headers['x-delivery-id'] ?? '-';
      const event = req.headers['x-event-type'] ?? '-';
      let line = `${new Date(req.receivedAtMs).toISOString()} ${req.method} ${req.path} ${String(event)} ${String(id)} X-Signature ${verdict(req.xSignatureValid)}, webhook-signature ${verdict(req.standardSignatureValid)}`;
      if (!ok) line += ' → 401';
      if (args.forwardTo) line += `; ${await forward(args.forwardTo, req)}`;
      io.out(line);
      return ok ? { status: 200, body: 'ok' } : { status: 401, body: 'invalid signature' };
    },
  });
  const checking = secrets.length
    ? ` (verifying ${args.verify === 'both' ? 'both signatures' : args.verify} against ${secrets.length} secret${secrets.length > 1 ? 's' : ''}: ${secrets.map((s) => `${s.slice(0, 10)}…`).join(', ')})`
    : '';
  io.out(`Listening for webhook deliveries on ${receiver.url}${checking}`);
  if (args.forwardTo) io.out(`Forwarding each delivery to ${args.forwardTo}`);
  return receiver;
}

/** Replays a stored delivery as the installation's owner; the exit status is 0 on a 2xx answer. */
export async function webhooksReplay(rt: CoreRuntime, args: ReplayArgs, io: Output = consoleOutput): Promise<{ exitCode: number; result: ReplayResult }> {
  const scope = await deliveryScope(rt.deps, args.deliveryId);
  const result = await replayDelivery(rt, scope, args.deliveryId, { target: args.to ?? 'webhook', resign: args.resign });
  const head = `Replayed ${result.deliveryId} to ${result.url} with ${result.signature} signatures`;
  if (result.ok) io.out(`${head}: ${result.statusCode} in ${result.durationMs} ms`);
  else if (result.statusCode !== null) io.out(`${head}: ${result.statusCode} (${result.error ?? 'failed'}) in ${result.durationMs} ms`);
  else if (result.error?.startsWith('ERR_WEBHOOK_URL_BLOCKED')) {
    io.out(`Replay of ${result.deliveryId} to ${result.url} was not sent: ${result.error}.`);
    // This command applies the URL rules itself: a host that only the running service allows (serve
    // --allow-webhook-host) is refused here unless the command is given the same option.
    const host = hostPort(result.url);
    io.err(
      `vconsole: this command checks webhook URLs itself; if the service runs with --allow-webhook-host for this receiver, give the same option here${host ? ` (--allow-webhook-host ${host})` : ''}, or send the replay elsewhere with --to URL.`,
    );
  } else io.out(`${head}: no answer (${result.error ?? 'failed'}) after ${result.durationMs} ms`);
  return { exitCode: result.ok ? 0 : 1, result };
}

/** HOST:PORT of a URL, as --allow-webhook-host takes it (the scheme's port when none is written). */
function hostPort(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return null;
  }
}

export interface RecoverArgs {
  webhookId: string;
  since?: string;
  until?: string;
  /** Only show what would be redelivered. */
  dryRun: boolean;
}

const WEBHOOK_ID = /^whk_[0-9a-f]+$/;

/** Parses the arguments after `webhooks recover`. */
export function parseRecoverArgs(argv: string[]): RecoverArgs {
  let webhookId: string | undefined;
  const a: Omit<RecoverArgs, 'webhookId'> = { dryRun: false };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--since') a.since = valueOf(argv, i++, f);
    else if (f === '--until') a.until = valueOf(argv, i++, f);
    else if (f === '--dry-run') a.dryRun = true;
    else if (f.startsWith('--')) throw new UsageError(`unknown option ${f}`);
    else if (webhookId === undefined) webhookId = f;
    else throw new UsageError(`unexpected argument ${f}`);
  }
  if (!webhookId || !WEBHOOK_ID.test(webhookId)) throw new UsageError('usage: vconsole webhooks recover WEBHOOK_ID [--since ISO] [--until ISO] [--dry-run]');
  return { webhookId, ...a };
}

function periodOf(args: { since?: string; until?: string }): RecoveryRequest {
  return { ...(args.since !== undefined ? { since: args.since } : {}), ...(args.until !== undefined ? { until: args.until } : {}) };
}

/** Shows the recovery's preview, then (unless --dry-run) queues it; exit 0 when queued (or previewed). */
export async function webhooksRecover(
  rt: CoreRuntime,
  args: RecoverArgs,
  io: Output = consoleOutput,
): Promise<{ exitCode: number; preview: RecoveryPreview; result: RecoveryResult | null }> {
  const scope = await webhookScope(rt.deps, args.webhookId);
  const preview = await previewRecovery(rt.deps, scope, args.webhookId, periodOf(args));
  io.out(
    `Period ${preview.since} – ${preview.until}: ${preview.events} event(s) of subscribed types; ${preview.skipped} already delivered or pending; ${preview.toDeliver} to redeliver.` +
      (preview.reenables ? ' The webhook is failed: recovering re-enables it.' : ''),
  );
  if (args.dryRun) return { exitCode: 0, preview, result: null };
  if (preview.toDeliver === 0) {
    // Nothing to redeliver: no recovery is recorded (the service refuses an empty one). A failed webhook is re-enabled
    // on its own, as the console's "Re-enable only" does: its missed events were delivered meanwhile (Retry) or none.
    if (preview.reenables) {
      await updateWebhook(rt, scope, args.webhookId, { status: 'active' });
      io.out('Nothing to redeliver: the webhook is active again, and new events are delivered.');
    } else io.out('Nothing to redeliver: no recovery was recorded.');
    return { exitCode: 0, preview, result: null };
  }
  const result = await recoverWebhook(rt, scope, args.webhookId, periodOf(args), 'cli');
  io.out(
    `Recovery ${result.recoveryId}: ${result.queued} new deliveries queued on the normal retry schedule${result.reenabled ? '; webhook re-enabled' : ''}.`,
  );
  io.out('The running service sends them now; if none is running, they go out when `vconsole serve` or the app starts.');
  return { exitCode: 0, preview, result };
}

export interface TriggerArgs {
  event: WebhookEvent;
  webhookId?: string;
  environment: 'sandbox' | 'live';
}

/** Parses the arguments after `webhooks trigger`. */
export function parseTriggerArgs(argv: string[]): TriggerArgs {
  let event: string | undefined;
  let webhookId: string | undefined;
  let environment: 'sandbox' | 'live' = 'sandbox';
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i]!;
    if (f === '--webhook') webhookId = valueOf(argv, i++, f);
    else if (f === '--environment') {
      const v = valueOf(argv, i++, f);
      if (v !== 'sandbox' && v !== 'live') throw new UsageError('--environment must be sandbox or live');
      environment = v;
    } else if (f.startsWith('--')) throw new UsageError(`unknown option ${f}`);
    else if (event === undefined) event = f;
    else throw new UsageError(`unexpected argument ${f}`);
  }
  const usage = `usage: vconsole webhooks trigger ${WEBHOOK_EVENTS.join('|')} [--webhook WEBHOOK_ID] [--environment sandbox|live]`;
  if (!event || !(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw new UsageError(usage);
  if (webhookId !== undefined && !WEBHOOK_ID.test(webhookId)) throw new UsageError(`--webhook must be a webhook id (whk_…); ${usage}`);
  return { event: event as WebhookEvent, environment, ...(webhookId !== undefined ? { webhookId } : {}) };
}

/** Queues a sample event; exit 1 when no webhook would receive it. `scope` is used when no webhook is named. */
export async function webhooksTrigger(
  rt: CoreRuntime,
  args: TriggerArgs,
  ownerScope: () => Scope | Promise<Scope>,
  io: Output = consoleOutput,
): Promise<{ exitCode: number; result: TriggerResult }> {
  const scope = args.webhookId !== undefined ? await webhookScope(rt.deps, args.webhookId) : await ownerScope();
  const result = await triggerSampleEvent(rt, scope, args.event, args.webhookId);
  if (result.deliveries.length === 0) {
    io.err(`No active ${scope.environment} webhook subscribes to ${args.event}: nothing sent.`);
    return { exitCode: 1, result };
  }
  for (const d of result.deliveries) io.out(`Sample ${args.event} queued for ${d.webhookId} as ${d.deliveryId} (verification ${String(result.payload['verificationId'])}).`);
  io.out('The running service sends it now, signed like every delivery; if none is running, it goes out when the service starts.');
  return { exitCode: 0, result };
}
