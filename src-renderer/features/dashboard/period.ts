// The dashboard's periods and the rates' wording. A period starts at a UTC midnight because that is how the
// service reads a date in every list filter, so a dashboard count and the History list it links to always agree.
export const PERIODS = [
  { value: 'today', label: 'Today', days: 1 },
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
] as const;
export type Period = (typeof PERIODS)[number]['value'];

const DAY_MS = 86_400_000;

/** The first UTC day of the period as YYYY-MM-DD ("today" is the current UTC day). */
export function periodStart(period: Period, nowMs: number): string {
  const days = PERIODS.find((p) => p.value === period)?.days ?? 1;
  const start = Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  return new Date(start).toISOString().slice(0, 10);
}

/** A rate as a whole percentage with one decimal when it matters; "—" when there is nothing to divide by. */
export function formatRate(rate: number | null): string {
  if (rate === null) return '—';
  const pct = rate * 100;
  return `${Number.isInteger(pct) ? pct : pct.toFixed(1)} %`;
}
