// Small display helpers shared by the pages.
import { currencyDigits } from '../../src-shared/money';
export function formatTime(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatMoney(amount: number, currency: string): string {
  try {
    // Minor units differ by currency (JPY has none, KWD three): scale by ISO 4217's exponent, the API's, and show every
    // digit of it (Intl alone shows IDR without decimals, which would round 10.50 to 11).
    const digits = currencyDigits(currency);
    const fmt = new Intl.NumberFormat(undefined, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    return fmt.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

export const STATUS_COLOR: Record<string, string> = { success: 'green', failed: 'red', error: 'orange', pending: 'blue' };

export { formatBytes } from '../../src-shared/format-bytes';
