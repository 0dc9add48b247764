// Labels and select data for the billable services; the catalogue itself is src-shared/services.ts, the same
// one the service validates price and service keys against.
import { SERVICE_CATALOGUE } from '../../../src-shared/services';

export const SERVICE_GROUPS = SERVICE_CATALOGUE;

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
