// The live routing directory in the store: CSV imports (BIC directory, ABA list, correspondents) per organization,
// and a RoutingDirectory over the imported rows, so live checks answer from what the operator imported.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AppError } from '../../../src-shared/app-error';
import type { DirectoryImport, DirectoryImportResult, DirectoryKind, DirectoryRef } from '../../../src-shared/schemas/routing';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { bic11, primaryOf, type AbaEntry, type BicEntry, type CorrespondentEntry, type DirectoryEntries, type RoutingDirectory } from './directory';
import { parseDirectoryCsv } from './directory-csv';

/** Directory files are megabytes; beyond this the import is refused rather than read into memory. */
export const MAX_DIRECTORY_BYTES = 64 * 1024 * 1024;
const MAX_REPORTED_ERRORS = 100;

export interface ImportSource {
  /** A CSV file on disk. */
  path?: string;
  /** Or the CSV text itself (then `name` names it). */
  text?: string;
  name?: string;
}

interface DirectoryRow {
  id: string;
  name: string;
  kind: DirectoryKind;
  imported_at: string;
  row_count: number;
  error_count: number;
}

function readSource(src: ImportSource): { text: string; name: string } {
  if (src.text !== undefined) return { text: src.text, name: src.name ?? 'directory.csv' };
  if (!src.path) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message: 'give a CSV file path or its text' }] });
  let buf: Buffer;
  try {
    buf = readFileSync(src.path);
  } catch (e) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message: `cannot read the file: ${(e as Error).message}` }] });
  }
  if (buf.length > MAX_DIRECTORY_BYTES) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message: `a directory file may hold at most ${MAX_DIRECTORY_BYTES / 1024 / 1024} MiB` }] });
  }
  return { text: buf.toString('utf8'), name: src.name ?? basename(src.path) };
}

/**
 * Parses and stores one directory file. A file with no usable row changes nothing (the previous import of its kind
 * stays current); otherwise its rows replace that kind's entries in one transaction, and refused rows are reported.
 */
export function importDirectoryCsv(deps: CoreDeps, organizationId: string, src: ImportSource, kind?: DirectoryKind): DirectoryImportResult {
  const { text, name } = readSource(src);
  const parsed = parseDirectoryCsv(text, kind);
  const rowErrors = parsed.errors.slice(0, MAX_REPORTED_ERRORS);
  if (parsed.rows.length === 0) {
    throw new AppError('VALIDATION_ERROR', {
      message: `No usable ${parsed.kind} directory row in ${name}; nothing was imported.`,
      details: rowErrors.slice(0, 20).map((e) => ({ field: `line ${e.line}`, message: e.message })),
    });
  }
  const { db } = deps;
  // `dir_` is not among the public id prefixes (decisions §1): directory imports never appear in the API.
  const id = `dir_${randomBytes(12).toString('hex')}`;
  const importedAt = iso(deps.clock.now());
  db.transaction(() => {
    db.prepare('INSERT INTO routing_directories (id, organization_id, name, kind, imported_at, row_count, error_count) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      id,
      organizationId,
      name,
      parsed.kind,
      importedAt,
      parsed.rows.length,
      parsed.errors.length,
    );
    if (parsed.kind === 'bic') {
      db.prepare('DELETE FROM routing_bics WHERE organization_id = ?').run(organizationId);
      // A later row for the same BIC wins, as it would in a spreadsheet read top to bottom.
      const ins = db.prepare(
        'INSERT OR REPLACE INTO routing_bics (organization_id, bic11, bic, bank_name, city, country, directory_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      for (const r of parsed.rows) ins.run(organizationId, bic11(r.bic), r.bic, r.bankName, r.city, r.country, id);
    } else if (parsed.kind === 'aba') {
      db.prepare('DELETE FROM routing_abas WHERE organization_id = ?').run(organizationId);
      const ins = db.prepare(
        'INSERT OR REPLACE INTO routing_abas (organization_id, routing_number, bank_name, city, state, directory_id) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const r of parsed.rows) ins.run(organizationId, r.routingNumber, r.bankName, r.city ?? null, r.state ?? null, id);
    } else {
      db.prepare('DELETE FROM routing_correspondents WHERE organization_id = ?').run(organizationId);
      const ins = db.prepare(
        'INSERT OR REPLACE INTO routing_correspondents (organization_id, bic11, correspondent_bic, currency, confidence, directory_id) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const r of parsed.rows) ins.run(organizationId, bic11(r.bic), r.correspondentBic, r.currency, r.confidence, id);
    }
  }).immediate();
  return {
    id,
    name,
    kind: parsed.kind,
    importedAt,
    rows: parsed.rows.length,
    errors: parsed.errors.length,
    current: true,
    rowErrors,
  };
}

/** Every import of the organization, newest first; `current` marks the one answering for its kind. */
export function listDirectoryImports(deps: CoreDeps, organizationId: string): DirectoryImport[] {
  const rows = deps.db
    .prepare('SELECT id, name, kind, imported_at, row_count, error_count FROM routing_directories WHERE organization_id = ? ORDER BY imported_at DESC, rowid DESC')
    .all(organizationId) as DirectoryRow[];
  const seen = new Set<string>();
  return rows.map((r) => {
    const current = !seen.has(r.kind);
    seen.add(r.kind);
    return { id: r.id, name: r.name, kind: r.kind, importedAt: r.imported_at, rows: r.row_count, errors: r.error_count, current };
  });
}

function currentImport(deps: CoreDeps, organizationId: string, kind: DirectoryKind): DirectoryRef | null {
  const r = deps.db
    .prepare('SELECT name, imported_at FROM routing_directories WHERE organization_id = ? AND kind = ? ORDER BY imported_at DESC, rowid DESC LIMIT 1')
    .get(organizationId, kind) as { name: string; imported_at: string } | undefined;
  return r ? { name: r.name, importedAt: r.imported_at } : null;
}

/** Which imported directory answers a check: BIC checks the BIC directory; correspondents and routes also the relationships. */
export type LivePart = 'bic' | 'aba' | 'correspondents';

/**
 * The live directory for one kind of check, or null when nothing relevant is imported (then only structure is
 * judged, decisions §5). Per kind, so that importing a BIC directory does not make every ABA number "not found".
 */
export function liveDirectory(deps: CoreDeps, organizationId: string, part: LivePart): RoutingDirectory | null {
  const ref =
    part === 'aba'
      ? currentImport(deps, organizationId, 'aba')
      : part === 'bic'
        ? currentImport(deps, organizationId, 'bic')
        : (currentImport(deps, organizationId, 'correspondents') ?? currentImport(deps, organizationId, 'bic'));
  if (!ref) return null;
  return createStoreDirectory(deps, organizationId, ref);
}

interface BicRow {
  bic: string;
  bank_name: string;
  city: string | null;
  country: string;
}

export function createStoreDirectory(deps: CoreDeps, organizationId: string, ref: DirectoryRef): RoutingDirectory {
  const { db } = deps;
  const bicStmt = db.prepare('SELECT bic, bank_name, city, country FROM routing_bics WHERE organization_id = ? AND bic11 = ?');
  const abaStmt = db.prepare('SELECT routing_number, bank_name, city, state FROM routing_abas WHERE organization_id = ? AND routing_number = ?');
  const corrStmt = db.prepare(
    'SELECT correspondent_bic, currency, confidence FROM routing_correspondents WHERE organization_id = ? AND bic11 = ? ORDER BY confidence DESC, correspondent_bic',
  );
  const toBic = (r: BicRow | undefined): BicEntry | null => (r ? { bic: r.bic, bankName: r.bank_name, city: r.city, country: r.country } : null);
  const corrFor = (key: string): CorrespondentEntry[] =>
    (corrStmt.all(organizationId, key) as { correspondent_bic: string; currency: string; confidence: number }[]).map((r) => ({
      bic: key,
      correspondentBic: r.correspondent_bic,
      currency: r.currency,
      confidence: r.confidence,
    }));
  return {
    name: ref.name,
    importedAt: ref.importedAt,
    findBic(bic) {
      const full = bic11(bic);
      return toBic(bicStmt.get(organizationId, full) as BicRow | undefined) ?? toBic(bicStmt.get(organizationId, primaryOf(full)) as BicRow | undefined);
    },
    findAba(routing) {
      const r = abaStmt.get(organizationId, routing.trim()) as { routing_number: string; bank_name: string; city: string | null; state: string | null } | undefined;
      return r ? ({ routingNumber: r.routing_number, bankName: r.bank_name, city: r.city, state: r.state } satisfies AbaEntry) : null;
    },
    correspondentsOf(bic, currency) {
      const full = bic11(bic);
      let list = corrFor(full);
      if (list.length === 0 && primaryOf(full) !== full) list = corrFor(primaryOf(full));
      const ccy = currency?.toUpperCase();
      return ccy === undefined ? list : list.filter((e) => e.currency.toUpperCase() === ccy);
    },
  };
}

/** All current entries as plain data, for a worker thread (functions and statements cannot cross threads). */
export function exportDirectoryEntries(deps: CoreDeps, organizationId: string): DirectoryEntries {
  const { db } = deps;
  const bics = (db.prepare('SELECT bic, bank_name, city, country FROM routing_bics WHERE organization_id = ?').all(organizationId) as BicRow[]).map(
    (r) => ({ bic: r.bic, bankName: r.bank_name, city: r.city, country: r.country }),
  );
  const abas = (
    db.prepare('SELECT routing_number, bank_name, city, state FROM routing_abas WHERE organization_id = ?').all(organizationId) as {
      routing_number: string;
      bank_name: string;
      city: string | null;
      state: string | null;
    }[]
  ).map((r) => ({ routingNumber: r.routing_number, bankName: r.bank_name, city: r.city, state: r.state }));
  const correspondents = (
    db.prepare('SELECT bic11, correspondent_bic, currency, confidence FROM routing_correspondents WHERE organization_id = ?').all(organizationId) as {
      bic11: string;
      correspondent_bic: string;
      currency: string;
      confidence: number;
    }[]
  ).map((r) => ({ bic: r.bic11, correspondentBic: r.correspondent_bic, currency: r.currency, confidence: r.confidence }));
  return { bics, abas, correspondents };
}

/** A name for the combined live directory (CSV batches check every kind against one directory). */
export function liveDirectoryRef(deps: CoreDeps, organizationId: string): DirectoryRef | null {
  const refs = (['bic', 'aba', 'correspondents'] as const).map((k) => currentImport(deps, organizationId, k)).filter((r): r is DirectoryRef => r !== null);
  if (refs.length === 0) return null;
  const latest = refs.reduce((a, b) => ((a.importedAt ?? '') >= (b.importedAt ?? '') ? a : b));
  return { name: refs.map((r) => r.name).join(' + '), importedAt: latest.importedAt };
}
