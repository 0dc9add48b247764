// Every billable service key (decisions §9), grouped for the switches and the price editor. The service only
// lists what is enabled, so the console derives what could be from the same shared tables the service uses.
import { CORRIDORS } from '../../../src-shared/corridors';
import { IDENTITY_TYPES } from '../../../src-shared/identity-rules';
import { PHONE_MARKETS } from '../../../src-shared/phone-markets';

export interface ServiceEntry {
  key: string;
  label: string;
}
export interface ServiceGroup {
  group: string;
  services: ServiceEntry[];
}

export const SERVICE_GROUPS: readonly ServiceGroup[] = [
  { group: 'Bank accounts', services: CORRIDORS.map((c) => ({ key: `account:${c.country}`, label: `${c.name} (${c.country})` })) },
  { group: 'Phone numbers', services: PHONE_MARKETS.map((m) => ({ key: `phone:${m.country}`, label: `${m.name} (${m.country})` })) },
  { group: 'Identity documents', services: IDENTITY_TYPES.map((t) => ({ key: `identity:${t.idType}`, label: t.label })) },
  {
    group: 'Other checks',
    services: [
      { key: 'face', label: 'Ghana Card facial check' },
      { key: 'address', label: 'Address verification' },
      { key: 'correspondents', label: 'Correspondent bank lookup' },
    ],
  },
];

const LABELS = new Map(SERVICE_GROUPS.flatMap((g) => g.services.map((s) => [s.key, s.label] as const)));
const KIND_LABEL: Record<string, string> = { account: 'Bank account', phone: 'Phone number', identity: 'Identity' };

/** A readable name; the kind is spelled out because "Nigeria (NG)" alone could be the account or the phone check. */
export function serviceLabel(key: string): string {
  const label = LABELS.get(key);
  if (!label) return key;
  const kind = KIND_LABEL[key.split(':')[0] ?? ''];
  return kind && key.includes(':') && !label.toLowerCase().includes(kind.toLowerCase()) ? `${kind} — ${label}` : label;
}

/** Select data: grouped catalogue, plus any key the service knows that this console version does not. */
export function serviceSelectData(extra: readonly string[] = []) {
  const unknown = [...new Set(extra)].filter((k) => !LABELS.has(k)).sort();
  const groups = SERVICE_GROUPS.map((g) => ({ group: g.group, items: g.services.map((s) => ({ value: s.key, label: `${s.key} — ${s.label}` })) }));
  return unknown.length ? [...groups, { group: 'Other', items: unknown.map((k) => ({ value: k, label: k })) }] : groups;
}
