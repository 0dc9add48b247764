// The console channels of the webhooks domain and the `vconsole webhooks listen|replay` commands, against a real
// service and real local receivers.
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeChannels } from '../../../src-shared/channels';
import { webhookChannels } from '../../../src-shared/channels-webhooks';
import { owner } from '../../../src-main/console/handlers';
import { webhookConsoleHandlers, type WebhookHandlers } from '../../../src-main/feature-webhooks';
import { parseListenArgs, parseReplayArgs, webhooksListen, webhooksReplay } from '../../../src-main/cli/webhooks-commands';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { standardWebhookHeader, xSignature } from '../../../src-main/core/webhooks/signing';
import { sqliteOnly, type TestService } from '../../helpers/harness';
import { receiverAndService, until, verifyAsync } from './helpers';

let ts: TestService;
let receiver: TestReceiver;
let h: WebhookHandlers;

beforeAll(async () => {
  ({ ts, receiver } = await receiverAndService());
  h = webhookConsoleHandlers({ rt: ts.service.rt, door: 'web' });
});
afterAll(async () => {
  await ts.stop();
  await receiver.close();
});

function input<K extends keyof typeof webhookChannels>(name: K, raw: unknown) {
  return webhookChannels[name].input.parse(raw) as Parameters<WebhookHandlers[K]>[0];
}

describe('console channels', () => {
  it('are well-formed domain:verb names that merge without clashes', () => {
    expect(() => mergeChannels(webhookChannels)).not.toThrow();
    expect(Object.keys(webhookChannels)).toEqual(
      expect.arrayContaining(['webhooks:list', 'webhooks:create', 'webhooks:update', 'webhooks:rotate', 'webhooks:delete', 'webhooks:deliveries', 'webhooks:delivery', 'webhooks:timeline', 'webhooks:replay', 'webhooks:retryNow', 'webhooks:setForward']),
    );
  });

  it('manage a webhook, show its deliveries, retry and replay them, and forward to a local receiver', async () => {
    const created = await h['webhooks:create'](input('webhooks:create', { request: { url: `${receiver.url}/console`, events: ['verification.completed'] } }));
    expect(webhookChannels['webhooks:create'].output.safeParse(created).success).toBe(true);
    const list = await h['webhooks:list'](input('webhooks:list', {}));
    expect(list.data.map((w) => w.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret.slice(6));

    const rotated = await h['webhooks:rotate'](input('webhooks:rotate', { id: created.id }));
    expect(rotated.secret).not.toBe(created.secret);
    // The console's rotation hands over both secrets: the receiver verifies against the list during the overlap.
    expect(rotated.previousSecret).toBe(created.secret);
    expect(webhookChannels['webhooks:rotate'].output.safeParse(rotated).success).toBe(true);
    const updated = await h['webhooks:update'](input('webhooks:update', { id: created.id, patch: { description: 'from console' } }));
    expect(updated).not.toHaveProperty('secret');
    expect(updated.description).toBe('from console');

    const local = await startTestReceiver({ secrets: [rotated.secret, rotated.previousSecret!] });
    try {
      // Refused with a message about local receivers, not the public-webhook rule ("publicly reachable https://").
      const own = h['webhooks:setForward'](input('webhooks:setForward', { url: `${ts.url}/api/v1` }));
      await expect(own).rejects.toMatchObject({ code: 'INVALID_WEBHOOK_URL', message: expect.stringContaining('local receiver') });
      await expect(own).rejects.toMatchObject({ message: expect.not.stringContaining('publicly reachable') });
      const fwd = await h['webhooks:setForward'](input('webhooks:setForward', { url: `http://localhost:${local.port}/fwd` }));
      // localhost is kept as given: the local agent resolves it to the loopback addresses only (loopbackLookup).
      expect(fwd.url).toBe(`http://localhost:${local.port}/fwd`);
      // …and it is this service when either loopback address is.
      await expect(h['webhooks:setForward'](input('webhooks:setForward', { url: `http://localhost:${ts.port}/api/v1` }))).rejects.toMatchObject({ code: 'INVALID_WEBHOOK_URL' });
      expect(await h['webhooks:getForward']({})).toEqual(fwd);

      await verifyAsync(ts, ts.sandboxKey);
      const [copy] = await local.waitFor(1);
      expect(copy!.xSignatureValid).toBe(true);
      expect(copy!.standardSignatureValid).toBe(true);
      await h['webhooks:setForward'](input('webhooks:setForward', { url: null }));

      const deliveries = await until(async () => {
        const d = await h['webhooks:deliveries'](input('webhooks:deliveries', { webhookId: created.id }));
        return d.data[0]?.status === 'success' ? d : null;
      }, 'delivery success');
      const id = deliveries.data[0]!.id;
      const retried = await h['webhooks:retryNow'](input('webhooks:retryNow', { id }));
      expect(retried.attempts).toBe(2);
      const counted = retried.attemptLog.filter((a) => a.attempt !== null).map((a) => [a.kind, a.attempt]);
      expect(counted).toEqual([['scheduled', 1], ['manual', 2]]);
      expect(retried.attemptLog.some((a) => a.kind === 'forward' && a.statusCode === 200)).toBe(true);

      const replay = await h['webhooks:replay'](input('webhooks:replay', { id, to: `http://localhost:${local.port}/again`, resign: true }));
      expect(replay).toMatchObject({ ok: true, signature: 'fresh' });
      const detail = await h['webhooks:delivery'](input('webhooks:delivery', { id }));
      expect(detail.attemptLog.some((a) => a.kind === 'replay')).toBe(true);
      // The timeline (the Deliveries panel's one call a page) carries the same delivery with the same attempt log.
      const timeline = await h['webhooks:timeline'](input('webhooks:timeline', { webhookId: created.id }));
      expect(timeline.data.find((d) => d.id === id)).toEqual(detail);
      expect(timeline.pagination.total).toBe(deliveries.pagination.total);
      await expect(h['webhooks:timeline'](input('webhooks:timeline', { environment: 'live', webhookId: created.id }))).rejects.toMatchObject({ code: 'NOT_FOUND' });

      // The console acts as the owner; another environment does not see this delivery.
      await expect(h['webhooks:delivery'](input('webhooks:delivery', { environment: 'live', id }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await owner({ rt: ts.service.rt, door: 'web' })).organizationId).toBe(ts.org!.organizationId);

      const del = await h['webhooks:delete'](input('webhooks:delete', { id: created.id }));
      expect(del).toEqual({ id: created.id, deleted: true });
    } finally {
      await local.close();
    }
  });
});

describe('vconsole webhooks', () => {
  it('parses its arguments', () => {
    expect(parseListenArgs(['--port', '4100', '--secret', 'whsec_x', '--forward-to', 'http://127.0.0.1:3000/h'])).toEqual({ port: 4100, secrets: ['whsec_x'], verify: 'both', forwardTo: 'http://127.0.0.1:3000/h' });
    // --secret repeats and --secrets-file adds one secret per line (comments and blanks ignored, duplicates once).
    const files: Record<string, string> = { '/s.txt': '# rotation\nwhsec_new\n\nwhsec_old\n', '/bad.txt': 'hello\n', '/empty.txt': '# none\n' };
    const read = (f: string) => {
      const t = files[f];
      if (t === undefined) throw new Error('ENOENT');
      return t;
    };
    expect(parseListenArgs(['--secret', 'whsec_old', '--secrets-file', '/s.txt', '--verify', 'x-signature'], read)).toEqual({ port: 0, secrets: ['whsec_old', 'whsec_new'], verify: 'x-signature' });
    expect(() => parseListenArgs(['--secrets-file', '/bad.txt'], read)).toThrow(/line 1/);
    expect(() => parseListenArgs(['--secrets-file', '/empty.txt'], read)).toThrow(/no secret/);
    expect(() => parseListenArgs(['--secrets-file', '/missing.txt'], read)).toThrow(/missing/);
    expect(() => parseListenArgs(['--secret', 'plain'])).toThrow(/whsec_/);
    expect(() => parseListenArgs(['--verify', 'either'])).toThrow(/--verify/);
    expect(() => parseListenArgs(['--port', 'x'])).toThrow();
    expect(() => parseListenArgs(['--bogus'])).toThrow();
    expect(parseReplayArgs(['del_0a', '--resign'])).toEqual({ deliveryId: 'del_0a', resign: true });
    expect(parseReplayArgs(['del_0a', '--to', 'http://localhost:9/x'])).toEqual({ deliveryId: 'del_0a', resign: false, to: 'http://localhost:9/x' });
    expect(() => parseReplayArgs([])).toThrow();
  });

  it('listen verifies signatures, answers 401 to a bad one and forwards the exact bytes', async () => {
    const target = await startTestReceiver();
    const lines: string[] = [];
    const secret = 'whsec_' + 'ab'.repeat(32);
    const listener = await webhooksListen({ port: 0, secrets: [secret], verify: 'both', forwardTo: `${target.url}/fwd` }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    try {
      const body = '{"event":"verification.completed", "x":1}';
      const good = await fetch(`${listener.url}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': xSignature(secret, body) }, body });
      // Only X-Signature is present, so the Standard Webhooks check fails and the receiver refuses.
      expect(good.status).toBe(401);
      const [fwd] = await target.waitFor(1);
      expect(fwd!.rawBody.toString('utf8')).toBe(body);
      expect(fwd!.headers['x-signature']).toBe(xSignature(secret, body));
      expect(lines.some((l) => l.includes('X-Signature valid') && l.includes('webhook-signature INVALID'))).toBe(true);

      // Both schemes signed correctly: accepted.
      const ts = Math.floor(Date.now() / 1000);
      const signed = {
        'content-type': 'application/json',
        'x-signature': xSignature(secret, body),
        'webhook-id': 'del_listen1',
        'webhook-timestamp': String(ts),
        'webhook-signature': standardWebhookHeader([secret], 'del_listen1', ts, body),
      };
      const ok = await fetch(`${listener.url}/`, { method: 'POST', headers: signed, body });
      expect(ok.status).toBe(200);
      expect(lines.some((l) => l.includes('X-Signature valid') && l.includes('webhook-signature valid'))).toBe(true);

      // A tampered X-Signature alone is enough to refuse.
      const tampered = await fetch(`${listener.url}/`, { method: 'POST', headers: { ...signed, 'x-signature': xSignature(secret, `${body} `) }, body });
      expect(tampered.status).toBe(401);
      expect(lines.some((l) => l.includes('X-Signature INVALID'))).toBe(true);
    } finally {
      await listener.close();
      await target.close();
    }
  });

  it('replay sends a stored delivery to a local receiver', async () => {
    const created = await h['webhooks:create'](input('webhooks:create', { request: { url: `${receiver.url}/cli`, events: ['verification.completed'] } }));
    await verifyAsync(ts, ts.sandboxKey);
    const d = await until(async () => (await h['webhooks:deliveries'](input('webhooks:deliveries', { webhookId: created.id }))).data[0], 'delivery');
    await until(async () => (await h['webhooks:delivery'](input('webhooks:delivery', { id: d.id }))).attempts > 0, 'attempted');
    const local = await startTestReceiver({ secrets: [created.secret] });
    try {
      const lines: string[] = [];
      const { exitCode } = await webhooksReplay(ts.service.rt, { deliveryId: d.id, to: `http://localhost:${local.port}/`, resign: true }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
      expect(exitCode).toBe(0);
      const [req] = await local.waitFor(1);
      expect(req!.xSignatureValid).toBe(true);
      expect(req!.standardSignatureValid).toBe(true);
      expect(lines[0]).toContain(d.id);
    } finally {
      await local.close();
    }
  });
});

describe('webhook operations from the console and the command line', () => {
  it('console channels: sample event, recovery preview and recovery, alerts', async () => {
    const created = await h['webhooks:create'](input('webhooks:create', { request: { url: `${receiver.url}/ops`, events: ['verification.failed'] } }));
    const before = receiver.requests.length;
    const sent = await h['webhooks:trigger'](input('webhooks:trigger', { event: 'verification.failed', id: created.id }));
    expect(webhookChannels['webhooks:trigger'].output.safeParse(sent).success).toBe(true);
    await receiver.waitFor(before + 1);
    expect(receiver.requests.at(-1)!.headers['x-delivery-id']).toBe(sent.deliveries[0]!.deliveryId);
    // Never failed: a recovery needs its period.
    await expect(h['webhooks:recoverPreview'](input('webhooks:recoverPreview', { id: created.id }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const preview = await h['webhooks:recoverPreview'](input('webhooks:recoverPreview', { id: created.id, period: { since: '2026-01-01T00:00:00Z' } }));
    expect(preview.reenables).toBe(false);
    // The sample was delivered: nothing to redeliver, which is refused rather than recorded as an empty recovery.
    expect(preview.toDeliver).toBe(0);
    await expect(h['webhooks:recover'](input('webhooks:recover', { id: created.id, period: { since: '2026-01-01T00:00:00Z' } }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await h['webhooks:alerts'](input('webhooks:alerts', {}))).toEqual({ data: [] });
  });

  // The CLI's admin commands act on a data folder (SQLite) only in this version (cli/kit.ts, PG_NOT_YET).
  sqliteOnly.it('`vconsole webhooks trigger|recover` run as a user runs them, beside the running service', async () => {
    const run = (...args: string[]) => {
      const r = spawnSync(process.execPath, ['bin/vconsole.mjs', 'webhooks', ...args, '--data-dir', ts.dataDir], { encoding: 'utf8' });
      return { code: r.status, out: r.stdout, err: r.stderr };
    };
    const bad = run('recover', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('usage: vconsole webhooks recover');
    const unknown = run('recover', 'whk_00', '--since', '2026-01-01');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('No webhook');
    const none = run('trigger', 'verification.completed', '--environment', 'live');
    expect(none.code).toBe(1);
    expect(none.err).toContain('No active live webhook');
    const sent = run('trigger', 'verification.failed');
    expect(sent.code).toBe(0);
    expect(sent.out).toMatch(/Sample verification\.failed queued for whk_[0-9a-f]+ as del_[0-9a-f]+/);
    // The running service (another store connection) picks the CLI's delivery up and sends it.
    const deliveryId = /as (del_[0-9a-f]+)/.exec(sent.out)![1]!;
    await until(() => receiver.requests.some((q) => q.headers['x-delivery-id'] === deliveryId), 'the CLI sample delivered by the service');
  });

  // Asynchronous: the receiver answers from this same process while the command runs.
  const runEq = (...args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const c = spawn(process.execPath, ['bin/vconsole.mjs', 'webhooks', ...args, `--data-dir=${ts.dataDir}`]);
      let out = '';
      let err = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr.on('data', (d: Buffer) => (err += d.toString()));
      c.on('close', (code) => resolve({ code, out, err }));
    });

  // README: webhooks replay|recover|trigger take --data-dir DIR or --data-dir=DIR and --json, like the other commands.
  sqliteOnly.it('`vconsole webhooks replay|recover|trigger` take --data-dir=DIR and --json', async () => {
    const sent = await runEq('trigger', 'verification.completed', '--json');
    expect(sent.code, sent.err).toBe(0);
    const trig = JSON.parse(sent.out) as { deliveries: { webhookId: string; deliveryId: string }[] };
    const { webhookId, deliveryId } = trig.deliveries[0]!;
    await until(() => receiver.requests.some((q) => q.headers['x-delivery-id'] === deliveryId), 'the CLI sample delivered by the service');
    const preview = await runEq('recover', webhookId, '--since', '2026-01-01T00:00:00Z', '--dry-run', '--json');
    expect(preview.code, preview.err).toBe(0);
    expect(JSON.parse(preview.out)).toMatchObject({ preview: { toDeliver: expect.any(Number) }, result: null });
    const before = receiver.requests.length;
    const replayed = await runEq('replay', deliveryId, '--to', `http://127.0.0.1:${receiver.port}/again`, '--json');
    expect(replayed.code, replayed.out + replayed.err).toBe(0);
    expect(JSON.parse(replayed.out)).toMatchObject({ ok: true, deliveryId, statusCode: 200 });
    await receiver.waitFor(before + 1);
  });

  // The receiver is allowed by the service's --allow-webhook-host, not by the command's own URL policy.
  sqliteOnly.it('`vconsole webhooks replay` to a host only the service allows: a clear message naming --allow-webhook-host, which the command takes too', async () => {
    const sent = await runEq('trigger', 'verification.completed');
    expect(sent.code, sent.err).toBe(0);
    const deliveryId = /as (del_[0-9a-f]+)/.exec(sent.out)![1]!;
    await until(() => receiver.requests.some((q) => q.headers['x-delivery-id'] === deliveryId), 'the CLI sample delivered by the service');
    const blocked = await runEq('replay', deliveryId);
    expect(blocked.code).toBe(1);
    expect(blocked.out).not.toMatch(/allowed in \d+ ms/);
    expect(blocked.out).toMatch(/was not sent: .*ERR_WEBHOOK_URL_BLOCKED/);
    expect(blocked.err).toContain(`--allow-webhook-host 127.0.0.1:${receiver.port}`);
    const before = receiver.requests.length;
    const replayed = await runEq('replay', deliveryId, '--allow-webhook-host', `127.0.0.1:${receiver.port}`);
    expect(replayed.code, replayed.out + replayed.err).toBe(0);
    expect(replayed.out).toMatch(/: 200 in \d+ ms/);
    await receiver.waitFor(before + 1);
    expect((await runEq('replay', deliveryId, '--allow-webhook-host', 'nope')).code).toBe(2);
  });
});
