// Live routing checks over the store's directory (core/routing/directory-store.ts): the checks are synchronous, the
// store asynchronous, so a check is evaluated over the rows loaded so far and again once the rows it looked up are
// loaded. Its answers must be those of the store read key by key (the directory before the SQL port, kept here as
// the reference), for any directory and any check, in a bounded number of loads.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCorrespondents, evaluateItem, type RoutingContext } from '../../../src-main/core/routing/checks';
import { bic11, createMemoryDirectory, primaryOf, type RoutingDirectory } from '../../../src-main/core/routing/directory';
import {
  createStoreDirectory,
  evaluateOverStore,
  exportDirectoryEntries,
  importDirectoryCsv,
  liveDirectoryRef,
  StoreDirectoryRows,
} from '../../../src-main/core/routing/directory-store';
import type { Db } from '../../../src-main/store/database';
import type { BatchItem, DirectoryRef } from '../../../src-shared/schemas/routing';
import { testDeps } from '../../helpers/core-deps';

const ORG = 'org_a';

/** The store directory as it was before the port: one synchronous statement per lookup. */
function referenceDirectory(db: Db, ref: DirectoryRef): RoutingDirectory {
  const bicStmt = db.prepare('SELECT bic, bank_name, city, country FROM routing_bics WHERE organization_id = ? AND bic11 = ?');
  const abaStmt = db.prepare('SELECT routing_number, bank_name, city, state FROM routing_abas WHERE organization_id = ? AND routing_number = ?');
  const corrStmt = db.prepare(
    'SELECT correspondent_bic, currency, confidence FROM routing_correspondents WHERE organization_id = ? AND bic11 = ? ORDER BY confidence DESC, correspondent_bic',
  );
  type BicRow = { bic: string; bank_name: string; city: string | null; country: string };
  const toBic = (r: BicRow | undefined) => (r ? { bic: r.bic, bankName: r.bank_name, city: r.city, country: r.country } : null);
  const corrFor = (key: string) =>
    (corrStmt.all(ORG, key) as { correspondent_bic: string; currency: string; confidence: number }[]).map((r) => ({
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
      return toBic(bicStmt.get(ORG, full) as BicRow | undefined) ?? toBic(bicStmt.get(ORG, primaryOf(full)) as BicRow | undefined);
    },
    findAba(routing) {
      const r = abaStmt.get(ORG, routing.trim()) as { routing_number: string; bank_name: string; city: string | null; state: string | null } | undefined;
      return r ? { routingNumber: r.routing_number, bankName: r.bank_name, city: r.city, state: r.state } : null;
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

// A small world of BICs, so that lookups hit, miss, fall back to the primary office and chain through correspondents.
const BICS = ['DEUTDEFF', 'DEUTDEFF500', 'COBADEFF', 'CHASUS33', 'CHASUS33XXX', 'CITIUS33', 'BARCGB22', 'BARCGB22123', 'HSBCGB2L'];
const ABAS = ['021000021', '026009593', '011000015', '121000248', '071000013'];
const CCYS = ['USD', 'EUR'];

interface Directory {
  bics: string[];
  abas: string[];
  /** bic, correspondent bic, currency */
  correspondents: [string, string, string][];
}

const directoryArb: fc.Arbitrary<Directory> = fc.record({
  bics: fc.subarray(BICS),
  abas: fc.subarray(ABAS),
  // Distinct confidences: equal ones leave the order of a tie to the engine.
  correspondents: fc.uniqueArray(fc.tuple(fc.constantFrom(...BICS), fc.constantFrom(...BICS), fc.constantFrom(...CCYS)), {
    maxLength: 14,
    selector: ([a, b, c]) => `${bic11(a)}|${b}|${c}`,
  }),
});

const itemArb: fc.Arbitrary<BatchItem> = fc.oneof(
  fc.record({ type: fc.constant('bic' as const), bic: fc.constantFrom(...BICS, 'deutdeff', 'DEUT12FF') }),
  fc.record({ type: fc.constant('routing' as const), routingNumber: fc.constantFrom(...ABAS, ' 021000021 ', '123') }),
  fc.record({ type: fc.constant('route' as const), fromBic: fc.constantFrom(...BICS), toBic: fc.constantFrom(...BICS), currency: fc.constantFrom(...CCYS, 'usd') }),
);

async function storeWith(dir: Directory) {
  const deps = testDeps();
  deps.db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES (?, 'A', '2026-01-01T00:00:00Z')`).run(ORG);
  if (dir.bics.length > 0) await importDirectoryCsv(deps, ORG, { text: `bic,bank_name,city,country\n${dir.bics.map((b) => `${b},Bank ${b},City,${b.slice(4, 6)}`).join('\n')}`, name: 'bics.csv' }, 'bic');
  if (dir.abas.length > 0) await importDirectoryCsv(deps, ORG, { text: `routing_number,bank_name,city,state\n${dir.abas.map((a) => `${a},Bank ${a},City,NY`).join('\n')}`, name: 'abas.csv' }, 'aba');
  if (dir.correspondents.length > 0) {
    const rows = dir.correspondents.map(([a, b, c], i) => `${a},${b},${c},${(0.99 - i * 0.01).toFixed(2)}`);
    await importDirectoryCsv(deps, ORG, { text: `bic,correspondent_bic,currency,confidence\n${rows.join('\n')}`, name: 'corr.csv' }, 'correspondents');
  }
  return deps;
}

/** Rows whose loads are counted. */
function countedRows(deps: ReturnType<typeof testDeps>) {
  const rows = new StoreDirectoryRows(deps.sql, ORG);
  const load = rows.load.bind(rows);
  const counter = { loads: 0 };
  rows.load = async () => {
    const loaded = await load();
    if (loaded) counter.loads++;
    return loaded;
  };
  return { rows, counter };
}

const REF: DirectoryRef = { name: 'imported', importedAt: '2026-01-01T00:00:00.000Z' };

describe('checks over the store directory', () => {
  it('answer as the store read key by key, for any directory and any checks, in at most three loads', async () => {
    await fc.assert(
      fc.asyncProperty(directoryArb, fc.array(itemArb, { minLength: 1, maxLength: 12 }), fc.constantFrom(...BICS), fc.constantFrom(undefined, ...CCYS), async (dir, items, corrBic, corrCcy) => {
        const deps = await storeWith(dir);
        const reference: RoutingContext = { directory: referenceDirectory(deps.db, REF), sandbox: false };
        const expected = items.map((item) => evaluateItem(item, reference));
        const { rows, counter } = countedRows(deps);
        const ctx: RoutingContext = { directory: rows.directory(REF), sandbox: false };
        expect(await evaluateOverStore(rows, () => items.map((item) => evaluateItem(item, ctx)))).toEqual(expected);
        expect(counter.loads).toBeLessThanOrEqual(3);
        // Correspondents, with the rows already loaded by the batch above and from scratch.
        const wanted = evaluateCorrespondents(corrBic, corrCcy, reference);
        expect(await evaluateOverStore(rows, () => evaluateCorrespondents(corrBic, corrCcy, ctx))).toEqual(wanted);
        const fresh = countedRows(deps);
        const freshCtx: RoutingContext = { directory: fresh.rows.directory(REF), sandbox: false };
        expect(await evaluateOverStore(fresh.rows, () => evaluateCorrespondents(corrBic, corrCcy, freshCtx))).toEqual(wanted);
        expect(fresh.counter.loads).toBeLessThanOrEqual(2);
        // The whole directory in memory (`vconsole batch validate --live`) answers the same items the same way.
        const ref = await liveDirectoryRef(deps, ORG);
        if (ref) {
          const inMemory: RoutingContext = { directory: await createStoreDirectory(deps, ORG, REF), sandbox: false };
          expect(items.map((item) => evaluateItem(item, inMemory))).toEqual(expected);
        }
        deps.db.close();
      }),
      { numRuns: 60 },
    );
  });

  it('loads nothing for a check that looks nothing up, and exports the entries a worker thread gets', async () => {
    const deps = await storeWith({ bics: ['DEUTDEFF'], abas: ['021000021'], correspondents: [['DEUTDEFF', 'CHASUS33', 'USD']] });
    const { rows, counter } = countedRows(deps);
    const ctx: RoutingContext = { directory: rows.directory(REF), sandbox: false };
    // A malformed BIC is answered from its form alone.
    const malformed = await evaluateOverStore(rows, () => evaluateItem({ type: 'bic', bic: 'DEUT12FF' }, ctx));
    expect(malformed.codes).toEqual(['BIC_MALFORMED']);
    expect(counter.loads).toBe(0);
    const entries = await exportDirectoryEntries(deps, ORG);
    expect(entries).toEqual({
      bics: [{ bic: 'DEUTDEFF', bankName: 'Bank DEUTDEFF', city: 'City', country: 'DE' }],
      abas: [{ routingNumber: '021000021', bankName: 'Bank 021000021', city: 'City', state: 'NY' }],
      correspondents: [{ bic: 'DEUTDEFFXXX', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.99 }],
    });
    expect(createMemoryDirectory('x', null, entries).findBic('DEUTDEFFXXX')?.bankName).toBe('Bank DEUTDEFF');
    deps.db.close();
  });
});
