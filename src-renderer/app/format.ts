// Small display helpers shared by the pages.
export function formatTime(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatMoney(amount: number, currency: string): string {
  try {
    const fmt = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    // Minor units differ by currency (JPY has none), so scale by the currency's own digits.
    const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
    return fmt.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

export const STATUS_COLOR: Record<string, string> = { success: 'green', failed: 'red', error: 'orange', pending: 'blue' };

export { formatBytes } from '../../src-shared/format-bytes';
