// UTF-16 text without a byte-order mark, told by its NUL bytes: ASCII text in UTF-16 has a NUL in every other byte.
// One rule for the service's CSV input (core/routing/csv-input.ts, which reads such a file) and the console's file
// check before an upload (features/routing/file-sniff.ts, which must not refuse it as binary).

/** 'utf16le' or 'utf16be' when the first bytes look like UTF-16 text without a byte-order mark; null otherwise. */
export function utf16ByNuls(head: Uint8Array): 'utf16le' | 'utf16be' | null {
  const n = Math.min(head.length, 4096) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) even++;
    if (head[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd > half * 0.3 && even < half * 0.05) return 'utf16le';
  if (even > half * 0.3 && odd < half * 0.05) return 'utf16be';
  return null;
}
