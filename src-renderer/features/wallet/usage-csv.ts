// The usage export: CSV (RFC 4180) built in the browser from the rows on screen, with spreadsheet formula
// injection neutralised, so a service name or id can never run as a formula when the file is opened.
import type { z } from 'zod';
import type { UsageRecordSchema } from '../../../src-shared/schemas/billing';
import { csvText } from '../../../src-shared/csv';
import { minorToMajor } from '../../../src-shared/money';

export type UsageRow = z.infer<typeof UsageRecordSchema>;
export type CsvCell = string | number | null | undefined;

/**
 * One CSV field. Only text is neutralised: a value typed as a number is written by us from a finite number, so
 * "-5.5" in a numeric column is a negative amount, never a formula.
 */
export function csvField(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  return csvText(cell);
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
