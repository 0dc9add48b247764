// The live routing directory in the store: CSV imports (BIC directory, ABA list, correspondents) per organization,
// and a RoutingDirectory over the imported rows, so live checks answer from what the operator imported. The checks
// themselves are synchronous and pure (checks.ts); the store answers asynchronously, so a check over the store runs
// through evaluateOverStore(): the rows it looks up are loaded, and it is evaluated again over them.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { AppError } from '../../../src-shared/app-error';
import type { DirectoryImport, DirectoryImportResult, DirectoryKind, DirectoryRef } from '../../../src-shared/schemas/routing';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import type { SqlQueries } from '../../store/sql-port';
import {
  bic11,
  createMemoryDirectory,
  primaryOf,
  type AbaEntry,
  type BicEntry,
  type CorrespondentEntry,
  type DirectoryEntries,
  type RoutingDirectory,
} from './directory';
import { parseDirectoryCsv } from './directory-csv';
import { perEngine } from '../../store/pg/dialect';
import { NotARegularFile, readRegularFile } from './regular-file';

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
  const refuse = (message: string): AppError => new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message }] });
  // Stat'ed before anything is read: a pipe or a device is refused instead of blocking the process, and a file over
  // the limit is refused by its size instead of being read into memory first (regular-file.ts).
  let read: ReturnType<typeof readRegularFile>;
  try {
    read = readRegularFile(src.path, MAX_DIRECTORY_BYTES);
  } catch (e) {
    if (e instanceof NotARegularFile) throw refuse(`cannot import ${basename(src.path)}: ${e.reason}`);
    throw refuse(`cannot read the file: ${(e as Error).message}`);
  }
  if ('tooLarge' in read) {
    throw refuse(`a directory file may hold at most ${MAX_DIRECTORY_BYTES / 1024 / 1024} MiB; this one has ${(read.tooLarge / 1024 / 1024).toFixed(1)} MiB or more`);
  }
  return { text: read.data.toString('utf8'), name: src.name ?? basename(src.path) };
}

/**
 * Parses and stores one directory file. A file with no usable row changes nothing (the previous import of its kind
 * stays current); otherwise its rows replace that kind's entries in one transaction, and refused rows are reported.
 */
export async function importDirectoryCsv(deps: CoreDeps, organizationId: string, src: ImportSource, kind?: DirectoryKind): Promise<DirectoryImportResult> {
  const { text, name } = readSource(src);
  const parsed = parseDirectoryCsv(text, kind);
  const rowErrors = parsed.errors.slice(0, MAX_REPORTED_ERRORS);
  if (parsed.rows.length === 0) {
    throw new AppError('VALIDATION_ERROR', {
      message: `No usable ${parsed.kind} directory row in ${name}; nothing was imported.`,
      details: rowErrors.slice(0, 20).map((e) => ({ field: `line ${e.line}`, message: e.message })),
    });
  }
  // `dir_` is not among the public id prefixes (decisions §1): directory imports never appear in the API.
  const id = `dir_${randomBytes(12).toString('hex')}`;
  const importedAt = iso(deps.clock.now());
  await deps.sql.transaction(async (tx) => {
    await tx.run('INSERT INTO routing_directories (id, organization_id, name, kind, imported_at, row_count, error_count) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      id,
      organizationId,
      name,
      parsed.kind,
      importedAt,
      parsed.rows.length,
      parsed.errors.length,
    ]);
    if (parsed.kind === 'bic') {
      await tx.run('DELETE FROM routing_bics WHERE organization_id = ?', [organizationId]);
      // parseDirectoryCsv refuses a repeated entry (the first row is kept), so no row updates another here.
      const ins = `INSERT INTO routing_bics (organization_id, bic11, bic, bank_name, city, country, directory_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (organization_id, bic11) DO UPDATE SET bic = excluded.bic, bank_name = excluded.bank_name, city = excluded.city,
          country = excluded.country, directory_id = excluded.directory_id`;
      for (const r of parsed.rows) await tx.run(ins, [organizationId, bic11(r.bic), r.bic, r.bankName, r.city, r.country, id]);
    } else if (parsed.kind === 'aba') {
      await tx.run('DELETE FROM routing_abas WHERE organization_id = ?', [organizationId]);
      const ins = `INSERT INTO routing_abas (organization_id, routing_number, bank_name, city, state, directory_id) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (organization_id, routing_number) DO UPDATE SET bank_name = excluded.bank_name, city = excluded.city, state = excluded.state,
          directory_id = excluded.directory_id`;
      for (const r of parsed.rows) await tx.run(ins, [organizationId, r.routingNumber, r.bankName, r.city ?? null, r.state ?? null, id]);
    } else {
      await tx.run('DELETE FROM routing_correspondents WHERE organization_id = ?', [organizationId]);
      const ins = `INSERT INTO routing_correspondents (organization_id, bic11, correspondent_bic, currency, confidence, directory_id) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (organization_id, bic11, correspondent_bic, currency) DO UPDATE SET confidence = excluded.confidence, directory_id = excluded.directory_id`;
      for (const r of parsed.rows) await tx.run(ins, [organizationId, bic11(r.bic), r.correspondentBic, r.currency, r.confidence, id]);
    }
  });
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

const LIST_IMPORTS = perEngine(
  (d) => `SELECT id, name, kind, imported_at, row_count, error_count FROM routing_directories WHERE organization_id = ? ORDER BY imported_at DESC, ${d.insertionOrder()} DESC`,
);
const CURRENT_IMPORT = perEngine(
  (d) => `SELECT name, imported_at FROM routing_directories WHERE organization_id = ? AND kind = ? ORDER BY imported_at DESC, ${d.insertionOrder()} DESC LIMIT 1`,
);

/** Every import of the organization, newest first; `current` marks the one answering for its kind. */
export async function listDirectoryImports(deps: Pick<CoreDeps, 'sql'>, organizationId: string): Promise<DirectoryImport[]> {
  const rows = await deps.sql.all<DirectoryRow>(LIST_IMPORTS[deps.sql.engine], [organizationId]);
  const seen = new Set<string>();
  return rows.map((r) => {
    const current = !seen.has(r.kind);
    seen.add(r.kind);
    return { id: r.id, name: r.name, kind: r.kind, importedAt: r.imported_at, rows: r.row_count, errors: r.error_count, current };
  });
}

async function currentImport(q: SqlQueries, organizationId: string, kind: DirectoryKind): Promise<DirectoryRef | null> {
  const r = await q.get<{ name: string; imported_at: string }>(CURRENT_IMPORT[q.engine], [organizationId, kind]);
  return r ? { name: r.name, importedAt: r.imported_at } : null;
}

/** Which imported directory answers a check: BIC checks the BIC directory; correspondents and routes also the relationships. */
export type LivePart = 'bic' | 'aba' | 'correspondents';

/**
 * The live directory for one kind of check, or null when nothing relevant is imported (then only structure is
 * judged, decisions §5). Per kind, so that importing a BIC directory does not make every ABA number "not found".
 * Its lookups answer from `rows`: evaluate the check through evaluateOverStore(rows, …).
 */
export async function liveDirectory(deps: Pick<CoreDeps, 'sql'>, organizationId: string, part: LivePart, rows: StoreDirectoryRows): Promise<RoutingDirectory | null> {
  const q = deps.sql;
  const ref =
    part === 'aba'
      ? await currentImport(q, organizationId, 'aba')
      : part === 'bic'
        ? await currentImport(q, organizationId, 'bic')
        : ((await currentImport(q, organizationId, 'correspondents')) ?? (await currentImport(q, organizationId, 'bic')));
  if (!ref) return null;
  return rows.directory(ref);
}

interface BicRow {
  bic: string;
  bank_name: string;
  city: string | null;
  country: string;
}

const toBic = (r: BicRow): BicEntry => ({ bic: r.bic, bankName: r.bank_name, city: r.city, country: r.country });

const marks = (n: number) => new Array<string>(n).fill('?').join(', ');

/**
 * The directory rows of one organization that a check looks up, loaded as it asks for them. The checks are
 * synchronous (checks.ts), so a lookup answers from the rows loaded so far; a key not loaded yet is noted (and
 * answers "not on file" meanwhile), and load() then fetches every noted key, one statement per table. A check
 * evaluated again after the load sees the rows it asked for; evaluateOverStore() repeats this until a pass asks for
 * nothing new, so its answer is the one the rows give. The lookups are those of the store (the 11-character BIC,
 * then its primary office; relationships best first).
 */
export class StoreDirectoryRows {
  private readonly bics = new Map<string, BicEntry | null>();
  private readonly abas = new Map<string, AbaEntry | null>();
  private readonly corr = new Map<string, CorrespondentEntry[]>();
  private readonly wanted = { bics: new Set<string>(), abas: new Set<string>(), corr: new Set<string>() };

  constructor(
    private readonly q: SqlQueries,
    private readonly organizationId: string,
  ) {}

  /** A RoutingDirectory named after `ref`, answering from these rows. */
  directory(ref: DirectoryRef): RoutingDirectory {
    return {
      name: ref.name,
      importedAt: ref.importedAt,
      findBic: (bic) => {
        const full = bic11(bic);
        return this.bic(full) ?? this.bic(primaryOf(full));
      },
      findAba: (routing) => this.aba(routing.trim()),
      correspondentsOf: (bic, currency) => {
        const full = bic11(bic);
        let list = this.correspondents(full);
        if (list.length === 0 && primaryOf(full) !== full) list = this.correspondents(primaryOf(full));
        const ccy = currency?.toUpperCase();
        return ccy === undefined ? list : list.filter((e) => e.currency.toUpperCase() === ccy);
      },
    };
  }

  private bic(key: string): BicEntry | null {
    const hit = this.bics.get(key);
    if (hit === undefined) this.wanted.bics.add(key);
    return hit ?? null;
  }

  private aba(key: string): AbaEntry | null {
    const hit = this.abas.get(key);
    if (hit === undefined) this.wanted.abas.add(key);
    return hit ?? null;
  }

  private correspondents(key: string): CorrespondentEntry[] {
    const hit = this.corr.get(key);
    if (hit === undefined) this.wanted.corr.add(key);
    return hit ?? [];
  }

  /** Loads the keys looked up since the last load; false when there was none (the last pass saw only loaded rows). */
  async load(): Promise<boolean> {
    const { bics, abas, corr } = this.wanted;
    if (bics.size === 0 && abas.size === 0 && corr.size === 0) return false;
    const org = this.organizationId;
    if (bics.size > 0) {
      const keys = [...bics];
      bics.clear();
      for (const k of keys) this.bics.set(k, null);
      const rows = await this.q.all<BicRow & { bic11: string }>(
        `SELECT bic11, bic, bank_name, city, country FROM routing_bics WHERE organization_id = ? AND bic11 IN (${marks(keys.length)})`,
        [org, ...keys],
      );
      for (const r of rows) this.bics.set(r.bic11, toBic(r));
    }
    if (abas.size > 0) {
      const keys = [...abas];
      abas.clear();
      for (const k of keys) this.abas.set(k, null);
      const rows = await this.q.all<{ routing_number: string; bank_name: string; city: string | null; state: string | null }>(
        `SELECT routing_number, bank_name, city, state FROM routing_abas WHERE organization_id = ? AND routing_number IN (${marks(keys.length)})`,
        [org, ...keys],
      );
      for (const r of rows) this.abas.set(r.routing_number, { routingNumber: r.routing_number, bankName: r.bank_name, city: r.city, state: r.state } satisfies AbaEntry);
    }
    if (corr.size > 0) {
      const keys = [...corr];
      corr.clear();
      for (const k of keys) this.corr.set(k, []);
      const rows = await this.q.all<{ bic11: string; correspondent_bic: string; currency: string; confidence: number }>(
        `SELECT bic11, correspondent_bic, currency, confidence FROM routing_correspondents WHERE organization_id = ? AND bic11 IN (${marks(keys.length)})
         ORDER BY confidence DESC, correspondent_bic`,
        [org, ...keys],
      );
      for (const r of rows) this.corr.get(r.bic11)!.push({ bic: r.bic11, correspondentBic: r.correspondent_bic, currency: r.currency, confidence: r.confidence });
    }
    return true;
  }
}

/**
 * Runs a synchronous check whose directory answers from `rows` (null: a directory in memory, nothing to load): it is
 * evaluated, the rows it looked up are loaded, and it is evaluated again until a pass looked up nothing new.
 */
export async function evaluateOverStore<T>(rows: StoreDirectoryRows | null, evaluate: () => T): Promise<T> {
  for (;;) {
    const out = evaluate();
    if (rows === null || !(await rows.load())) return out;
  }
}

/**
 * The organization's current directory, every entry loaded in memory: for a whole file of checks (`vconsole batch
 * validate --live`), as the console's batches have it in their worker thread.
 */
export async function createStoreDirectory(deps: Pick<CoreDeps, 'sql'>, organizationId: string, ref: DirectoryRef): Promise<RoutingDirectory> {
  return createMemoryDirectory(ref.name, ref.importedAt, await exportDirectoryEntries(deps, organizationId));
}

/** All current entries as plain data, for a worker thread (functions and statements cannot cross threads). */
export async function exportDirectoryEntries(deps: Pick<CoreDeps, 'sql'>, organizationId: string): Promise<DirectoryEntries> {
  const q = deps.sql;
  const [bics, abas, correspondents] = await Promise.all([
    q.all<BicRow>('SELECT bic, bank_name, city, country FROM routing_bics WHERE organization_id = ?', [organizationId]),
    q.all<{ routing_number: string; bank_name: string; city: string | null; state: string | null }>(
      'SELECT routing_number, bank_name, city, state FROM routing_abas WHERE organization_id = ?',
      [organizationId],
    ),
    q.all<{ bic11: string; correspondent_bic: string; currency: string; confidence: number }>(
      'SELECT bic11, correspondent_bic, currency, confidence FROM routing_correspondents WHERE organization_id = ?',
      [organizationId],
    ),
  ]);
  return {
    bics: bics.map(toBic),
    abas: abas.map((r) => ({ routingNumber: r.routing_number, bankName: r.bank_name, city: r.city, state: r.state })),
    correspondents: correspondents.map((r) => ({ bic: r.bic11, correspondentBic: r.correspondent_bic, currency: r.currency, confidence: r.confidence })),
  };
}

/** A name for the combined live directory (CSV batches check every kind against one directory). */
export async function liveDirectoryRef(deps: Pick<CoreDeps, 'sql'>, organizationId: string): Promise<DirectoryRef | null> {
  const refs = (await Promise.all((['bic', 'aba', 'correspondents'] as const).map((k) => currentImport(deps.sql, organizationId, k)))).filter(
    (r): r is DirectoryRef => r !== null,
  );
  if (refs.length === 0) return null;
  const latest = refs.reduce((a, b) => ((a.importedAt ?? '') >= (b.importedAt ?? '') ? a : b));
  return { name: refs.map((r) => r.name).join(' + '), importedAt: latest.importedAt };
}
