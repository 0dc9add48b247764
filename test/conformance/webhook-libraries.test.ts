// Signed deliveries as receivers see them (issue 18): a real receiver — a plain node:http server written the way a
// customer would, verifying every request with the official Standard Webhooks library (`standardwebhooks`) and
// with `svix`'s verifier before answering 2xx — gets real deliveries from the running service, before and after a
// secret rotation (both secrets sign for 24 h). A forged body is refused by both libraries.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { api, newKey, NG_OK, startTestService, type TestService } from '../helpers/harness';

interface Verdict {
  path: string;
  body: string;
  headers: Record<string, string>;
  standard: string;
  svix: string;
}

/** Verifies with both libraries; answers 204 when both accept, 400 otherwise (so a bad signature fails the delivery). */
function startVerifyingReceiver(secrets: () => string[]) {
  const verdicts: Verdict[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const attempt = (verify: (secret: string) => unknown) => {
        const errors: string[] = [];
        for (const s of secrets()) {
          try {
            verify(s);
            return 'ok';
          } catch (e) {
            errors.push((e as Error).message);
          }
        }
        return errors.join('; ') || 'no secret';
      };
      const standard = attempt((s) => new StandardWebhook(s).verify(body, headers));
      const svix = attempt((s) => new SvixWebhook(s).verify(body, headers));
      verdicts.push({ path: req.url ?? '', body, headers, standard, svix });
      res.statusCode = standard === 'ok' && svix === 'ok' ? 204 : 400;
      res.end();
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    verdicts,
    async listen(): Promise<number> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return (server.address() as AddressInfo).port;
    },
    async waitFor(n: number): Promise<Verdict[]> {
      while (verdicts.length < n) await new Promise<void>((r) => waiters.push(r));
      return verdicts.slice(0, n);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('webhook deliveries verified by the official libraries', () => {
  let secretsInUse: string[] = [];
  const receiver = startVerifyingReceiver(() => secretsInUse);
  let ts: TestService;
  let port: number;

  beforeAll(async () => {
    port = await receiver.listen();
    ts = await startTestService({ retryUnitMs: 50, allowWebhookHosts: [`127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await ts?.stop();
    await receiver.close();
  });

  async function asyncVerification() {
    const r = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
    expect(r.status).toBe(202);
    return r.body.id as string;
  }

  it('standardwebhooks and svix both verify a real delivery, and again after a rotation with either secret', async () => {
    const created = await api(ts.url, 'POST', '/client/webhooks', {
      key: ts.sandboxKey,
      body: { url: `http://127.0.0.1:${port}/hook`, events: ['verification.completed'] },
    });
    expect(created.status).toBe(201);
    const first: string = created.body.secret;
    secretsInUse = [first];

    const verificationId = await asyncVerification();
    const [v1] = await receiver.waitFor(1);
    expect(v1).toMatchObject({ path: '/hook', standard: 'ok', svix: 'ok' });
    expect(JSON.parse(v1!.body)).toMatchObject({ event: 'verification.completed', verificationId });

    const rotated = await api(ts.url, 'PATCH', `/client/webhooks/${created.body.id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
    expect(rotated.status).toBe(200);
    const second: string = rotated.body.secret;
    expect(second).not.toBe(first);

    await asyncVerification();
    const [, v2] = await receiver.waitFor(2);
    // Each secret alone verifies the delivery: the header carries one signature per secret.
    for (const secret of [first, second]) {
      expect(() => new StandardWebhook(secret).verify(v2!.body, v2!.headers)).not.toThrow();
      expect(() => new SvixWebhook(secret).verify(v2!.body, v2!.headers)).not.toThrow();
    }
    expect(v2).toMatchObject({ standard: 'ok', svix: 'ok' });

    // A forged body, or another secret, is refused by both libraries.
    const forged = v2!.body.replace('verification.completed', 'verification.failed');
    expect(() => new StandardWebhook(second).verify(forged, v2!.headers)).toThrow();
    expect(() => new SvixWebhook(second).verify(forged, v2!.headers)).toThrow();
    const stranger = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect(() => new StandardWebhook(stranger).verify(v2!.body, v2!.headers)).toThrow();
    expect(() => new SvixWebhook(stranger).verify(v2!.body, v2!.headers)).toThrow();

    // The service recorded both deliveries as delivered (the receiver answered 204 only after verifying).
    const list = await api(ts.url, 'GET', `/client/webhooks/${created.body.id}/deliveries`, { key: ts.sandboxKey });
    expect(list.status).toBe(200);
    for (let i = 0; i < 500 && list.body.data.some((d: { status: string }) => d.status !== 'success'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      Object.assign(list, await api(ts.url, 'GET', `/client/webhooks/${created.body.id}/deliveries`, { key: ts.sandboxKey }));
    }
    expect(list.body.data.map((d: { status: string }) => d.status)).toEqual(['success', 'success']);
  });
});
