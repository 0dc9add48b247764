// The service catalogue (decisions §9) is the one the core prices and gates by: every verification the sandbox
// documents bills to a key in it, and a key outside it cannot be priced.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isServiceKey, SERVICE_CATALOGUE, serviceKey } from '../../src-shared/services';
import { accountSpec } from '../../src-main/core/verification/account-spec';
import { phoneSpec } from '../../src-main/core/verification/phone-spec';
import { identitySpec } from '../../src-main/core/verification/identity-spec';
import { faceSpec } from '../../src-main/core/verification/face-spec';
import { addressSpec } from '../../src-main/core/verification/address-spec';
import { validateServiceKey } from '../../src-main/core/billing/billing';
import type { KindSpec } from '../../src-main/core/verification/types';

const specs: Record<string, KindSpec<unknown>> = {
  account: accountSpec as KindSpec<unknown>,
  phone: phoneSpec as KindSpec<unknown>,
  identity: identitySpec as KindSpec<unknown>,
  face: faceSpec as KindSpec<unknown>,
  address: addressSpec as KindSpec<unknown>,
};

describe('service catalogue', () => {
  it('every documented verification bills to a catalogued service', () => {
    const fixtures = JSON.parse(readFileSync(new URL('../../resources/sandbox/fixtures.json', import.meta.url), 'utf8')) as { kind: string; request: unknown }[];
    expect(fixtures.length).toBeGreaterThan(100);
    const missing = fixtures.map((f) => specs[f.kind]!.serviceKey(f.request)).filter((k) => !isServiceKey(k));
    expect(missing).toEqual([]);
  });

  it('spells keys as decisions §9 does and lists each once', () => {
    expect([serviceKey.account('NG'), serviceKey.phone('KE'), serviceKey.identity('passport')]).toEqual(['account:NG', 'phone:KE', 'identity:passport']);
    const keys = SERVICE_CATALOGUE.flatMap((g) => g.services.map((s) => s.key));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(expect.arrayContaining(['account:NG', 'account:ET', 'phone:GH', 'identity:ghana_card', 'face', 'address', 'correspondents']));
  });

  it('refuses keys of services that do not exist', () => {
    expect(validateServiceKey(' account:NG ')).toBe('account:NG');
    for (const bad of ['account:ZZ', 'account:nigeria', 'phone:GB', 'identity:visa', 'faces', '']) {
      expect(() => validateServiceKey(bad), bad).toThrow();
    }
  });
});
