// Writing CSV cells that are safe to open in a spreadsheet: formula injection neutralised (OWASP "CSV
// Injection": a leading = + - @ TAB or CR makes spreadsheets evaluate the cell) and RFC 4180 quoting. Used by
// the batch result files and by the console's exports, so every CSV this product writes follows one rule.

/** Prefixes text a spreadsheet would read as a formula with a single quote. */
export function neutraliseCsvText(text: string): string {
  if (text.length === 0) return text;
  const c = text.charCodeAt(0);
  // = + - @ TAB CR
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 ? `'${text}` : text;
}

function edgeSpace(text: string): boolean {
  const a = text.charCodeAt(0);
  const b = text.charCodeAt(text.length - 1);
  return a === 32 || a === 9 || b === 32 || b === 9;
}

/** One CSV field from text: neutralised, then quoted when it holds a quote, comma, line break or edge space. */
export function csvText(value: string): string {
  const v = neutraliseCsvText(value);
  return v.length > 0 && (/[",\r\n]/.test(v) || edgeSpace(v)) ? `"${v.replaceAll('"', '""')}"` : v;
}
