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

/** A file size people can read: bytes below 1 KB (never "0 KB"), one decimal below 10 KB/MB, whole numbers above. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${kb < 10 ? kb.toFixed(1) : Math.round(kb)} KB`;
  const mb = kb / 1024;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}
