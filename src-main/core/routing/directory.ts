// Routing directory: the bank names, ABA numbers and correspondent relationships that routing checks answer from.
// An in-memory implementation serves the sandbox fixtures, tests and worker threads; the live store implements the same interface.

export interface BicEntry {
  /** 8 or 11 characters. */
  bic: string;
  bankName: string;
  city: string | null;
  country: string;
}

export interface AbaEntry {
  routingNumber: string;
  bankName: string;
  city?: string | null;
  state?: string | null;
}

/** `bic` holds an account in `currency` with `correspondentBic` (its nostro), so it can pay through it. */
export interface CorrespondentEntry {
  bic: string;
  correspondentBic: string;
  currency: string;
  /** 0..1 */
  confidence: number;
}

export interface RoutingDirectory {
  name: string;
  importedAt: string | null;
  /** Tries the 11-character BIC, then its 8-character primary office. */
  findBic(bic11: string): BicEntry | null;
  findAba(routing: string): AbaEntry | null;
  /** Relationships of the BIC (or, when it has none of its own, of its primary office), optionally for one currency. */
  correspondentsOf(bic: string, currency?: string): CorrespondentEntry[];
}

export interface DirectoryEntries {
  bics: BicEntry[];
  abas: AbaEntry[];
  correspondents: CorrespondentEntry[];
}

/** Canonical 11-character form: 8-character BICs and `XXX` branches name the same primary office. */
export function bic11(bic: string): string {
  const v = bic.trim().toUpperCase();
  return v.length === 8 ? `${v}XXX` : v;
}

/** The primary office of a BIC, in 11-character form. */
export function primaryOf(bic: string): string {
  return `${bic11(bic).slice(0, 8)}XXX`;
}

export function createMemoryDirectory(name: string, importedAt: string | null, entries: DirectoryEntries): RoutingDirectory {
  const bics = new Map<string, BicEntry>();
  for (const e of entries.bics) bics.set(bic11(e.bic), e);
  const abas = new Map<string, AbaEntry>();
  for (const e of entries.abas) abas.set(e.routingNumber.trim(), e);
  const corr = new Map<string, CorrespondentEntry[]>();
  for (const e of entries.correspondents) {
    const key = bic11(e.bic);
    const list = corr.get(key);
    if (list) list.push(e);
    else corr.set(key, [e]);
  }

  return {
    name,
    importedAt,
    findBic(bic) {
      const full = bic11(bic);
      const hit = bics.get(full);
      if (hit) return hit;
      // An 8-character BIC is its own primary office: no second lookup (batch files ask this for every new BIC).
      return full.length === 11 && full.endsWith('XXX') ? null : (bics.get(primaryOf(full)) ?? null);
    },
    findAba(routing) {
      return abas.get(routing.trim()) ?? null;
    },
    correspondentsOf(bic, currency) {
      const full = bic11(bic);
      const list = corr.get(full) ?? corr.get(primaryOf(full)) ?? [];
      const ccy = currency?.toUpperCase();
      return list
        .filter((e) => ccy === undefined || e.currency.toUpperCase() === ccy)
        .sort((a, b) => b.confidence - a.confidence);
    },
  };
}

export { detectDirectoryKind, parseDirectoryCsv, type DirectoryCsvKind, type DirectoryCsvResult } from './directory-csv';
