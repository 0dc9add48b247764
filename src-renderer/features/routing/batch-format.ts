// Pure helpers of the batch-CSV screens: the column-mapping fields and their select options, progress figures
// (rate, ETA) and the reason breakdown drawn as bars. Kept free of React so they are unit-tested.

export const MAPPING_FIELDS = ['type', 'bic', 'routing', 'fromBic', 'toBic', 'currency'] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number];
export type Mapping = Record<MappingField, number | null>;

export const MAPPING_LABELS: Record<MappingField, { label: string; help: string }> = {
  type: { label: 'Type', help: 'bic, routing or route (optional)' },
  bic: { label: 'BIC', help: 'BIC / SWIFT code to check' },
  routing: { label: 'Routing number', help: 'US ABA routing number to check' },
  fromBic: { label: 'From BIC', help: 'Sender of a route check' },
  toBic: { label: 'To BIC', help: 'Receiver of a route check' },
  currency: { label: 'Currency', help: 'ISO 4217 currency of a route check' },
};

export const UNMAPPED = 'none';

/** Select options for one mapping field: every column of the file by position and header, or none. */
export function columnOptions(headers: readonly string[]): { value: string; label: string }[] {
  return [
    { value: UNMAPPED, label: '— not in this file —' },
    ...headers.map((h, i) => ({ value: String(i), label: `${i + 1}. ${h.trim() === '' ? '(unnamed column)' : h}` })),
  ];
}

export function toSelectValue(index: number | null): string {
  return index === null ? UNMAPPED : String(index);
}

export function fromSelectValue(value: string | null, columnCount: number): number | null {
  if (value === null || value === UNMAPPED) return null;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n < columnCount ? n : null;
}

/** What makes a mapping unusable, or null: each row needs a BIC, a routing number, or a full route. */
export function mappingProblem(m: Mapping): string | null {
  const route = m.fromBic !== null && m.toBic !== null && m.currency !== null;
  if (m.bic === null && m.routing === null && !route) {
    return 'Map at least a BIC column, a routing-number column, or From BIC + To BIC + Currency.';
  }
  const used = MAPPING_FIELDS.map((f) => m[f]).filter((v): v is number => v !== null);
  if (new Set(used).size !== used.length) return 'One column is mapped to two fields; give each field its own column.';
  return null;
}

export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatRate(rowsPerSecond: number): string {
  if (!Number.isFinite(rowsPerSecond) || rowsPerSecond <= 0) return '—';
  return rowsPerSecond >= 100 ? `${Math.round(rowsPerSecond).toLocaleString('en-US')} rows/s` : `${rowsPerSecond.toFixed(1)} rows/s`;
}

export interface ReasonBar {
  reason: string;
  count: number;
  /** Share of all invalid-row reasons, 0..100. */
  percent: number;
}

/** The reasons of invalid rows, most frequent first (ties by name so the order is stable). */
export function reasonBars(reasons: Record<string, number>): ReasonBar[] {
  const entries = Object.entries(reasons).filter(([, n]) => Number.isFinite(n) && n > 0);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return entries
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => ({ reason, count, percent: total === 0 ? 0 : (count / total) * 100 }));
}

export const BATCH_STATUS_COLOR: Record<string, string> = { running: 'blue', done: 'green', failed: 'red', cancelled: 'gray' };
