// Parses the three routing-directory CSV kinds a user imports in live mode (BIC directory, ABA list, correspondent
// relationships) into checked entries plus per-row errors; writing them to the store is the store's job.
import { judgeAba } from '../../../src-shared/validators/aba';
import { parseBic } from '../../../src-shared/validators/bic';
import { isBlankRecord, parseCsvText } from './csv-reader';
import { guessDelimiter, toCommaCsv } from './csv-input';
import { bic11, type AbaEntry, type BicEntry, type CorrespondentEntry } from './directory';
import { isCurrencyCode } from '../../../src-shared/money';

export type DirectoryCsvKind = 'bic' | 'aba' | 'correspondents';

export interface DirectoryRowError {
  /** 1-based line in the file. */
  line: number;
  message: string;
}

export type DirectoryCsvResult =
  | { kind: 'bic'; rows: BicEntry[]; errors: DirectoryRowError[] }
  | { kind: 'aba'; rows: AbaEntry[]; errors: DirectoryRowError[] }
  | { kind: 'correspondents'; rows: CorrespondentEntry[]; errors: DirectoryRowError[] };

/** Accepted header names per field (compared lower-case, with spaces and dashes as underscores). */
export const DIRECTORY_HEADERS = {
  bic: {
    bic: ['bic', 'swift', 'swift_code', 'bic_code', 'bic11', 'bic8', 'swift_bic'],
    bankName: ['bank_name', 'name', 'bank', 'institution', 'institution_name'],
    city: ['city', 'town', 'location'],
    country: ['country', 'country_code', 'iso_country'],
  },
  aba: {
    routingNumber: ['routing_number', 'routing', 'aba', 'rtn', 'aba_number', 'routing_transit_number'],
    bankName: ['bank_name', 'name', 'bank', 'institution', 'customer_name'],
    city: ['city', 'town'],
    state: ['state', 'state_code'],
  },
  correspondents: {
    bic: ['bic', 'bank_bic', 'from_bic', 'swift'],
    correspondentBic: ['correspondent_bic', 'correspondent', 'corr_bic', 'intermediary_bic', 'nostro_bic'],
    currency: ['currency', 'ccy', 'currency_code'],
    confidence: ['confidence', 'score'],
  },
} as const;

const REQUIRED: Record<DirectoryCsvKind, readonly string[]> = {
  bic: ['bic', 'bankName'],
  aba: ['routingNumber', 'bankName'],
  correspondents: ['bic', 'correspondentBic', 'currency'],
};

function norm(h: string): string {
  return h.trim().toLowerCase().replace(/[\s\-./]+/g, '_');
}

function columnsFor(kind: DirectoryCsvKind, header: readonly string[]): Map<string, number> {
  const cols = new Map<string, number>();
  const names = header.map(norm);
  for (const [field, aliases] of Object.entries(DIRECTORY_HEADERS[kind])) {
    const i = names.findIndex((n) => (aliases as readonly string[]).includes(n));
    if (i !== -1) cols.set(field, i);
  }
  return cols;
}

/** Picks the kind whose required columns the header has; null when none fits. */
export function detectDirectoryKind(header: readonly string[]): DirectoryCsvKind | null {
  for (const kind of ['correspondents', 'aba', 'bic'] as const) {
    const cols = columnsFor(kind, header);
    if (REQUIRED[kind].every((f) => cols.has(f))) return kind;
  }
  return null;
}

function normBic(v: string): string {
  return v.trim().replace(/\s/g, '').toUpperCase();
}

/** Parses a directory CSV held in memory (directory files are megabytes, not gigabytes). */
export function parseDirectoryCsv(text: string, kind?: DirectoryCsvKind): DirectoryCsvResult {
  // A semicolon-, tab- or pipe-separated file (a spreadsheet's export in many locales) is read as the batch reads one:
  // it was refused with "Missing column(s): bic", its whole header read as one column.
  const delimiter = guessDelimiter(text);
  const records = parseCsvText(delimiter === ',' ? text : toCommaCsv(text, delimiter)).filter((r) => r.error !== null || !isBlankRecord(r.cells));
  const header = records[0];
  const detected = kind ?? (header ? detectDirectoryKind(header.cells) : null) ?? 'bic';
  const errors: DirectoryRowError[] = [];
  if (!header) return { kind: detected, rows: [], errors: [{ line: 1, message: 'The file is empty.' }] } as DirectoryCsvResult;
  const cols = columnsFor(detected, header.cells);
  const missing = REQUIRED[detected].filter((f) => !cols.has(f));
  if (missing.length > 0) {
    const accepted = missing.map((f) => `${f} (${(DIRECTORY_HEADERS[detected] as Record<string, readonly string[]>)[f]?.join('/')})`);
    return {
      kind: detected,
      rows: [],
      errors: [{ line: header.line, message: `Missing column(s): ${accepted.join(', ')}.` }],
    } as DirectoryCsvResult;
  }
  const get = (cells: readonly string[], field: string): string => {
    const i = cols.get(field);
    return i === undefined ? '' : (cells[i] ?? '').trim();
  };

  const bics: BicEntry[] = [];
  const abas: AbaEntry[] = [];
  const corrs: CorrespondentEntry[] = [];
  // The line of the first row of each entry (the store's keys: an 8-character BIC is its XXX office). A later row
  // for the same entry is refused and names that line, rather than silently replacing it.
  const firstLine = new Map<string, number>();
  for (const r of records.slice(1)) {
    const fail = (message: string): void => {
      errors.push({ line: r.line, message });
    };
    /** True when `key` is new; otherwise reports the row as repeating `what` of the first line. */
    const firstOf = (key: string, what: string): boolean => {
      const line = firstLine.get(key);
      if (line === undefined) {
        firstLine.set(key, r.line);
        return true;
      }
      fail(`${what} repeats line ${line}; the first row is kept.`);
      return false;
    };
    if (r.error !== null) {
      fail(`Malformed CSV row (${r.error}).`);
      continue;
    }
    const c = r.cells;
    if (detected === 'bic') {
      const parsed = parseBic(get(c, 'bic'));
      const bankName = get(c, 'bankName');
      if (!parsed.ok) fail(parsed.reasons.join(' '));
      else if (bankName === '') fail('The bank name is empty.');
      else {
        const country = get(c, 'country').toUpperCase() || parsed.parts.countryCode;
        const bic = normBic(get(c, 'bic'));
        if (!/^[A-Z]{2}$/.test(country)) fail(`The country "${country}" is not an ISO 3166 alpha-2 code.`);
        else if (firstOf(bic11(bic), `The BIC ${bic}`)) bics.push({ bic, bankName, city: get(c, 'city') || null, country });
      }
    } else if (detected === 'aba') {
      const routingNumber = get(c, 'routingNumber');
      const bankName = get(c, 'bankName');
      // The live check's rule (length, Federal Reserve prefix, 3-7-1 checksum): a row it would refuse is not imported.
      const { problems } = judgeAba(routingNumber);
      if (problems.length > 0) fail(problems.map((p) => p.reason).join(' '));
      else if (bankName === '') fail('The bank name is empty.');
      else if (firstOf(routingNumber, `The routing number ${routingNumber}`)) {
        abas.push({ routingNumber, bankName, city: get(c, 'city') || null, state: get(c, 'state') || null });
      }
    } else {
      const a = parseBic(get(c, 'bic'));
      const b = parseBic(get(c, 'correspondentBic'));
      const currency = get(c, 'currency').toUpperCase();
      const rawConfidence = get(c, 'confidence');
      const confidence = rawConfidence === '' ? 1 : Number(rawConfidence);
      if (!a.ok) fail(`bic: ${a.reasons.join(' ')}`);
      else if (!b.ok) fail(`correspondent_bic: ${b.reasons.join(' ')}`);
      else if (!isCurrencyCode(currency)) fail(`The currency "${currency}" is not an ISO 4217 code.`);
      else if (!Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
        fail(`The confidence "${rawConfidence}" is not a number from 0 to 1.`);
      } else {
        const bic = normBic(get(c, 'bic'));
        const correspondentBic = normBic(get(c, 'correspondentBic'));
        if (firstOf(`${bic11(bic)}|${correspondentBic}|${currency}`, `The relationship ${bic} holds ${currency} at ${correspondentBic}`)) {
          corrs.push({ bic, correspondentBic, currency, confidence });
        }
      }
    }
  }
  if (detected === 'bic') return { kind: 'bic', rows: bics, errors };
  if (detected === 'aba') return { kind: 'aba', rows: abas, errors };
  return { kind: 'correspondents', rows: corrs, errors };
}
