// Reads a cache TTL field (Providers › Cache of definitive answers). Before, the field stripped every non-digit
// before parsing, so "1.5" was saved as 15 s, "-5" as 5 s and an empty field as 0 (the cache off, silently, and a
// cached answer is billed). Now those are refused in words under the field, like the Settings page's numbers.
import { numberFieldValue } from '../settings/number-field';

import { CACHE_TTL_MAX_SECONDS } from '../../../src-shared/schemas/providers';

export { CACHE_TTL_MAX_SECONDS };

export type CacheTtlRead = { ok: true; seconds: number } | { ok: false; error: string };

export function readCacheTtl(value: string | number): CacheTtlRead {
  const n = numberFieldValue(value);
  if (n === null) return { ok: false, error: 'Enter a number of seconds (0 turns the cache off).' };
  if (!Number.isInteger(n) || n < 0 || n > CACHE_TTL_MAX_SECONDS) {
    return { ok: false, error: `A whole number of seconds from 0 (off) to ${CACHE_TTL_MAX_SECONDS.toLocaleString('en-US')} (30 days).` };
  }
  return { ok: true, seconds: n };
}
