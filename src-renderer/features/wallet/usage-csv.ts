// The usage export: CSV (RFC 4180) built in the browser from the rows on screen, with spreadsheet formula
// injection neutralised, so a service name or id can never run as a formula when the file is opened.
import type { z } from 'zod';
import type { UsageRecordSchema } from '../../../src-shared/schemas/billing';
import { minorToMajor } from './money';

export type UsageRow = z.infer<typeof UsageRecordSchema>;
export type CsvCell = string | number | null | undefined;

// OWASP "CSV Injection": a leading = + - @ (or tab / carriage return) makes spreadsheets evaluate the cell.
const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixes a text cell that a spreadsheet would read as a formula with a single quote. */
export function neutraliseCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One CSV field. Only text is neutralised: a value typed as a number is written by us from a finite number, so
 * "-5.5" in a numeric column is a negative amount, never a formula.
 */
export function csvField(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  const text = typeof cell === 'number' ? (Number.isFinite(cell) ? String(cell) : '') : neutraliseCell(cell);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export const USAGE_CSV_HEADER = ['id', 'created_at', 'kind', 'service', 'verification_id', 'amount_minor', 'amount', 'currency', 'ledger_entry_id'] as const;

export function usageCsv(rows: readonly UsageRow[]): string {
  return toCsv(
    USAGE_CSV_HEADER,
    rows.map((r) => [r.id, r.createdAt, r.kind, r.service, r.verificationId, r.amount, Number(minorToMajor(r.amount, r.currency)), r.currency, r.ledgerEntryId]),
  );
}
