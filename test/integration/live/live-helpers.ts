// Shared set-up of the live-mode suites: the real service on port 0 and the upstream simulator on another real
// socket, providers routed to it, a funded wallet; helpers read the usage records the way a client does.
import { expect } from 'vitest';
import { enableService, setPrice, topUp } from '../../../src-main/core/billing/billing';
import type { ProviderInput } from '../../../src-shared/schemas/providers';
import { liveProviders } from '../../../src-main/providers/registry';
import { startSimulator, type SimulatorHandle } from '../../../src-main/simulator';
import { api, newKey, startTestService, type StartOptions, type TestService } from '../../helpers/harness';

export const PRICE = 25;
export const BALANCE = 10_000;

export interface LiveEnv {
  ts: TestService;
  sim: SimulatorHandle;
  stop(): Promise<void>;
}

/** Fast limits so fault tests do not wait long; each test may override per provider. */
export const FAST = { timeoutMs: 400, deadlineMs: 1500, retries: 2, breakerThreshold: 50, breakerCooldownMs: 60_000 } as const;

export async function startLive(o: StartOptions = {}, services = ['account:NG', 'account:GB', 'account:DE', 'account:FR', 'phone:KE', 'identity:national_id']): Promise<LiveEnv> {
  const sim = await startSimulator({ apiKey: 'sim-upstream-key-0001' });
  const ts = await startTestService(o);
  const org = ts.org!.organizationId;
  await topUp(ts.service.deps, org, BALANCE, 'USD');
  for (const s of services) {
    await setPrice(ts.service.deps, org, s, PRICE, 'USD');
    await enableService(ts.service.deps, org, s);
  }
  return {
    ts,
    sim,
    async stop() {
      await ts.stop();
      await sim.stop();
    },
  };
}

export async function setProvider(env: LiveEnv, input: Partial<ProviderInput> & Pick<ProviderInput, 'id' | 'adapter' | 'routes'>): Promise<void> {
  const base = input.adapter === 'epc-vop' ? env.sim.baseUrls.epcVop : input.adapter === 'uk-cop' ? env.sim.baseUrls.ukCop : env.sim.baseUrls.generic;
  await liveProviders(env.ts.service.rt).config.set({ baseUrl: base, secret: 'sim-upstream-key-0001', ...FAST, ...input });
}

export async function verify(env: LiveEnv, kind: string, body: Record<string, unknown>) {
  const r = await api(env.ts.url, 'POST', `/verify/${kind}`, { key: env.ts.liveKey, idem: newKey(), body });
  expect(r.status, r.text).toBe(kind === 'address' || body['mode'] === 'async' ? 202 : 200);
  return r.body as Record<string, any>;
}

export async function usageOf(env: LiveEnv, verificationId: string) {
  const r = await api(env.ts.url, 'GET', `/client/usage?limit=100`, { key: env.ts.liveKey });
  expect(r.status).toBe(200);
  return (r.body.data as { verificationId: string; kind: string; amount: number }[]).filter((u) => u.verificationId === verificationId);
}

export async function balance(env: LiveEnv): Promise<number> {
  const r = await api(env.ts.url, 'GET', '/client/wallet', { key: env.ts.liveKey });
  return r.body.balance as number;
}

/** A charge and exactly one reversal for a non-answer; a charge alone for an answer. */
export async function expectBilling(env: LiveEnv, id: string, reversed: boolean) {
  const u = await usageOf(env, id);
  expect(u.filter((x) => x.kind === 'charge').map((x) => x.amount)).toEqual([-PRICE]);
  expect(u.filter((x) => x.kind === 'reversal').map((x) => x.amount)).toEqual(reversed ? [PRICE] : []);
}

/** ISO 13616 check digits (mod 97), so test IBANs pass the service's own checksum validation. */
export function iban(country: string, bban: string): string {
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rem = 0;
  for (const ch of digits) rem = (rem * 10 + Number(ch)) % 97;
  return `${country}${String(98 - rem).padStart(2, '0')}${bban}`;
}

export const NG = (accountNumber = '0123456789') => ({ country: 'NG', accountNumber, bankCode: '058' });
