// Money: the API speaks integer minor units, people type and read major units. Conversions go through strings
// so 19.99 never becomes 1998 by way of a binary float. Shared by the console and the CLI.
import currencyCodes from 'currency-codes';

/**
 * Decimal places of a currency's minor unit as ISO 4217 lists them (USD 2, JPY 0, KWD 3, IDR 2, IQD 3): the API's
 * amounts are integers of that unit (decisions.md), so the console and the CLI convert with the same exponent. Intl's
 * own digits are the ones shown in shops and differ for fifteen listed currencies (IDR, PKR, COP, HUF, IQD, …: 0 where
 * ISO says 2 or 3), so they serve only a code outside the list (an older wallet's); 2 if unknown.
 */
export function currencyDigits(currency: string): number {
  const listed = LISTED_DIGITS.get(currency);
  if (listed !== undefined) return listed;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * The shape of an ISO 4217 alphabetic code as the service stores it (three capital letters). Routing judges only
 * this: codes outside the list, such as CNH, appear in real directories (docs/routing.md).
 */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code);
}

/**
 * A code ISO 4217 lists (the currency-codes package's table): what money is held and priced in. Three letters alone
 * let a typo (UDS) become a wallet's currency for good.
 */
export function isListedCurrency(code: string): boolean {
  return isCurrencyCode(code) && ISO_4217.has(code);
}

/**
 * Codes ISO 4217 added after the table's publication (currency-codes 2.2.0: the list of 2024-06-25): XCG, the
 * Caribbean guilder, in use since 2025.
 */
const LISTED_SINCE = ['XCG'];
const ISO_4217: ReadonlySet<string> = new Set([...currencyCodes.codes(), ...LISTED_SINCE]);
/** ISO 4217's minor-unit exponent of each listed code (XCG: 2); codes without one (XAU, XDR, …) are left out. */
const LISTED_DIGITS: ReadonlyMap<string, number> = new Map([
  ...currencyCodes.data.filter((c) => Number.isInteger(c.digits)).map((c) => [c.code, c.digits] as const),
  ['XCG', 2] as const,
]);

export type ParsedAmount = { ok: true; minor: number } | { ok: false; message: string };

/**
 * Reads an amount typed in major units ("25", "25.5", "1,000.00") into minor units. Commas and spaces are
 * taken as digit grouping only; the decimal separator is the dot, so "1,5" is refused rather than guessed.
 */
export function parseMajorAmount(text: string, currency: string): ParsedAmount {
  const digits = currencyDigits(currency);
  const t = text.trim().replace(/[\s_]/g, '');
  if (t === '') return { ok: false, message: 'Enter an amount.' };
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/.test(t)) {
    return { ok: false, message: `Enter a positive amount like ${digits > 0 ? '25.' + '0'.repeat(digits) : '2500'} (a dot for decimals).` };
  }
  const [whole = '', frac = ''] = t.replace(/,/g, '').split('.');
  if (frac.length > digits) {
    return { ok: false, message: digits === 0 ? `${currency} has no minor unit: enter a whole amount.` : `${currency} has at most ${digits} decimal places.` };
  }
  const minor = Number(whole + frac.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor)) return { ok: false, message: 'That amount is too large.' };
  return { ok: true, minor };
}

/** Minor units as a plain major-unit decimal string (no symbol, no grouping): -550 USD → "-5.50". */
export function minorToMajor(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0');
  if (digits === 0) return sign + abs;
  return `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/** Below this many major units the wallet card warns: a handful of live checks from running dry. */
export const LOW_BALANCE_MAJOR = 10;

export function isLowBalance(balanceMinor: number, currency: string): boolean {
  return balanceMinor < LOW_BALANCE_MAJOR * 10 ** currencyDigits(currency);
}
