// The billable services of decisions §9: how a service key is spelled for each kind of check, and the
// catalogue of every key this product can charge for, built from the same corridor, market and document tables
// that drive validation. The core prices and gates by these keys; the console lists them.
import { CORRIDORS } from './corridors';
import { IDENTITY_TYPES } from './identity-rules';
import { PHONE_MARKETS } from './phone-markets';

export const serviceKey = {
  account: (country: string) => `account:${country}`,
  phone: (country: string) => `phone:${country}`,
  identity: (idType: string) => `identity:${idType}`,
  face: 'face',
  address: 'address',
  correspondents: 'correspondents',
} as const;

export interface ServiceEntry {
  key: string;
  label: string;
}
export interface ServiceGroup {
  group: string;
  services: ServiceEntry[];
}

export const SERVICE_CATALOGUE: readonly ServiceGroup[] = [
  { group: 'Bank accounts', services: CORRIDORS.map((c) => ({ key: serviceKey.account(c.country), label: `${c.name} (${c.country})` })) },
  { group: 'Phone numbers', services: PHONE_MARKETS.map((m) => ({ key: serviceKey.phone(m.country), label: `${m.name} (${m.country})` })) },
  { group: 'Identity documents', services: IDENTITY_TYPES.map((t) => ({ key: serviceKey.identity(t.idType), label: t.label })) },
  {
    group: 'Other checks',
    services: [
      { key: serviceKey.face, label: 'Ghana Card facial check' },
      { key: serviceKey.address, label: 'Address verification' },
      { key: serviceKey.correspondents, label: 'Correspondent bank lookup' },
    ],
  },
];

const KNOWN = new Set(SERVICE_CATALOGUE.flatMap((g) => g.services.map((s) => s.key)));

/** True for a key of a service this product offers (account:NG yes; account:ZZ, account:nigeria no). */
export function isServiceKey(key: string): boolean {
  return KNOWN.has(key);
}
