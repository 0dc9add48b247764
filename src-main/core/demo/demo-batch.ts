// The demo's batch CSV (issue 23, docs/demo.md "The batch"): a month-end supplier-payouts file of a few hundred
// rows with the mistakes such files really carry, checked through the console's own batch path (BatchJobs.start,
// the CSV engine in its worker thread) against the sandbox routing test data, to a finished batch with its result
// files. The loader runs it on its own core and waits for it, so the batch row is written — and listed as demo
// data — on the loader's connection; the result files live under <dataDir>/batches/<id>/ like any batch's, and the
// input file under <dataDir>/demo/. `demo remove` deletes both (removeDemoBatchFiles).
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import type { BatchJob } from '../../../src-shared/schemas/routing';
import type { ManualClock } from '../clock';
import type { Principal } from '../principal';
import { batchJobsFor } from '../routing/batch-jobs';
import type { CoreRuntime } from '../runtime';

/** Rows of the demo's payouts file (plus the header). */
export const DEMO_BATCH_ROWS = 300;

/** Where the loader writes the input files of demo batches (result files go where every batch's go). */
export function demoFilesDir(dataDir: string): string {
  return join(dataDir, 'demo');
}

interface Payee {
  name: string;
  /** SWIFT payees carry a BIC, US domestic (ACH) payees a routing number. */
  bic?: string;
  routing?: string;
  currency: string;
  country: string;
}

// Banks of the sandbox routing test data (resources/routing/sandbox-fixtures.json), so well-formed rows match.
const EU_BICS = ['DEUTDEFF', 'DEUTDEFF500', 'COBADEFF', 'BNPAFRPP'];
const GB_BICS = ['BARCGB22', 'HSBCGB2L', 'NWBKGB2L'];
const US_BICS = ['CHASUS33', 'CITIUS33', 'BOFAUS3N'];
const ABAS = ['021000021', '026009593', '121000248', '021000089', '111000025'];

const NAMES: Record<string, string[]> = {
  DE: ['Hansa Verpackung GmbH', 'Müller Logistik GmbH', 'Rheintal Maschinenbau AG', 'Nordlicht Druck GmbH', 'Weber & Söhne KG', 'Alpen Kühltransporte GmbH'],
  FR: ['Atelier Lumière SARL', 'Transports Garnier SAS', 'Boulangerie Industrielle du Nord', 'Cartonnages Martin SA'],
  GB: ['Northgate Supplies Ltd', 'Smith, Jones & Co', 'Harbour Freight Services Ltd', 'Pennine Packaging Ltd', 'Thames Office Interiors Ltd'],
  US: ['Lakeside Freight LLC', 'Blue Ridge Components Inc.', 'Summit Print & Mail', 'Gulf Coast Cold Storage LLC', 'Prairie Fasteners Co.', 'Harbor Point Staffing, Inc.'],
  NL: ['Van der Berg Transport B.V.', 'Delta Bloemen B.V.'],
  CH: ['Bergmann Präzision AG'],
  IT: ['Tessitura Lombarda S.p.A.'],
};

const CURRENCY: Record<string, string> = { DE: 'EUR', FR: 'EUR', NL: 'EUR', IT: 'EUR', GB: 'GBP', US: 'USD', CH: 'CHF' };

type Mistake = { bic?: string; routing?: string; country: string };

/**
 * The mistakes a month-end payouts file carries, with the reason code each gets from the CSV engine (docs/routing.md).
 * Fixed counts, so every story's batch has the same shape: 20 invalid rows of 300.
 */
const MISTAKES: { count: number; make: (rand: () => number) => Mistake }[] = [
  // A spreadsheet dropped the leading zero of a routing number (ROUTING_NUMBER_FORMAT).
  { count: 5, make: (r) => ({ routing: pick(ABAS.filter((a) => a.startsWith('0')), r).slice(1), country: 'US' }) },
  // Two digits swapped while typing (ROUTING_NUMBER_CHECKSUM; each fails the 3-7-1 check).
  { count: 4, make: (r) => ({ routing: pick(['021000012', '026009539', '121000284', '111000052'], r), country: 'US' }) },
  // A BIC cut short or mistyped (BIC_MALFORMED).
  { count: 4, make: (r) => pick([{ bic: 'DEUTDEF', country: 'DE' }, { bic: 'BNPAFRP', country: 'FR' }, { bic: 'BARCGB2', country: 'GB' }, { bic: 'HSBC-GB2L', country: 'GB' }], r) },
  // A well-formed BIC of a bank outside the sandbox test data (TEST_NUMBER_NOT_FOUND; in live: NOT_IN_DIRECTORY).
  { count: 4, make: (r) => pick([{ bic: 'INGBNL2A', country: 'NL' }, { bic: 'RABONL2U', country: 'NL' }, { bic: 'UBSWCHZH', country: 'CH' }, { bic: 'BCITITMM', country: 'IT' }], r) },
  // Both a BIC and a routing number filled in (AMBIGUOUS_ROW).
  { count: 2, make: (r) => ({ bic: pick(US_BICS, r), routing: pick(ABAS, r), country: 'US' }) },
  // Bank details missing altogether (MISSING_IDENTIFIER).
  { count: 1, make: () => ({ country: 'GB' }) },
];

function pick<T>(xs: readonly T[], rand: () => number): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function cell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function goodPayee(rand: () => number): Payee {
  const r = rand();
  // A European business paying mostly in EUR and GBP, with a share of US suppliers (SWIFT or ACH).
  if (r < 0.38) {
    const bic = pick(EU_BICS, rand);
    const country = bic.slice(4, 6);
    return { name: pick(NAMES[country]!, rand), bic, currency: 'EUR', country };
  }
  if (r < 0.68) return { name: pick(NAMES['GB']!, rand), bic: pick(GB_BICS, rand), currency: 'GBP', country: 'GB' };
  if (r < 0.8) return { name: pick(NAMES['US']!, rand), bic: pick(US_BICS, rand), currency: 'USD', country: 'US' };
  return { name: pick(NAMES['US']!, rand), routing: pick(ABAS, rand), currency: 'USD', country: 'US' };
}

/** The payouts file: `payee_ref,payee_name,country,currency,amount,bic,routing_number`, CRLF, RFC 4180 quoting. */
export function demoBatchCsv(rand: () => number, endMs: number): { name: string; text: string; rows: number; invalid: number } {
  const rows: Payee[] = [];
  const invalid = MISTAKES.reduce((a, m) => a + m.count, 0);
  for (let i = 0; i < DEMO_BATCH_ROWS - invalid; i++) rows.push(goodPayee(rand));
  for (const m of MISTAKES) {
    for (let i = 0; i < m.count; i++) {
      const x = m.make(rand);
      const row: Payee = { name: pick(NAMES[x.country]!, rand), country: x.country, currency: CURRENCY[x.country]!, ...(x.bic ? { bic: x.bic } : {}), ...(x.routing ? { routing: x.routing } : {}) };
      // Mistakes sit anywhere in the file, not at its end.
      rows.splice(Math.floor(rand() * (rows.length + 1)), 0, row);
    }
  }
  const lines = ['payee_ref,payee_name,country,currency,amount,bic,routing_number'];
  for (const [i, p] of rows.entries()) {
    const amount = (Math.round((150 + rand() ** 2 * 24_850) * 100) / 100).toFixed(2);
    lines.push([`SUP-${10_400 + i * 7 + Math.floor(rand() * 7)}`, p.name, p.country, p.currency, amount, p.bic ?? '', p.routing ?? ''].map(cell).join(','));
  }
  const month = new Date(endMs).toISOString().slice(0, 7);
  return { name: `supplier-payouts-${month}.csv`, text: `${lines.join('\r\n')}\r\n`, rows: rows.length, invalid };
}

/**
 * Writes the payouts file under <dataDir>/demo/ and runs it to completion through the console's batch path on the
 * loader's core (`rt`), at the story's time (`clock`): the batch row is inserted and finished on the loader's
 * connection, so the loader's listing triggers tag it. The running service is not involved: a batch runs in a
 * worker thread of the process that starts it, and nothing of it goes through the durable queue.
 */
export async function runDemoBatch(
  rt: CoreRuntime,
  principal: Principal,
  clock: ManualClock,
  rand: () => number,
  endMs: number,
): Promise<BatchJob> {
  const dataDir = rt.info().dataDir;
  const file = demoBatchCsv(rand, endMs);
  const dir = join(demoFilesDir(dataDir), randomBytes(6).toString('hex'));
  const path = join(dir, file.name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, file.text, { mode: 0o600 });
  const jobs = batchJobsFor(rt.deps, dataDir);
  let started: BatchJob;
  try {
    started = await jobs.start(principal, { path });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // The batch's "finished" time: a couple of seconds after its start in the story (the worker answers in well under
  // a second here; the clock is the loader's, so it is moved before the worker reports back).
  clock.advance(1_000 + Math.floor(rand() * 2_000));
  const done = await jobs.wait(principal.organizationId, started.id);
  if (done.status !== 'done') {
    throw new AppError('INTERNAL_ERROR', { message: `The demo batch did not finish (${done.status}${done.error ? `: ${done.error}` : ''}).` });
  }
  return done;
}

function inside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
}

/**
 * Deletes the files of removed demo batches: each batch's folder <dataDir>/batches/<id>/ (its result files) and its
 * input file's folder when the loader wrote it (under <dataDir>/demo/), then <dataDir>/demo/ itself once empty.
 * Paths outside those two folders are never touched, whatever a row says. Returns the number of batch folders deleted.
 */
export function removeDemoBatchFiles(dataDir: string, batches: { id: string; inputPath: string }[]): number {
  let removed = 0;
  const batchesDir = join(dataDir, 'batches');
  const demoDir = demoFilesDir(dataDir);
  for (const b of batches) {
    const dir = join(batchesDir, b.id);
    if (/^bat_[A-Za-z0-9_-]+$/.test(b.id) && inside(batchesDir, dir) && existsSync(dir)) {
      rmSync(dir, { recursive: true, force: true });
      removed++;
    }
    const inputDir = dirname(b.inputPath);
    if (inside(demoDir, inputDir) && dirname(resolve(inputDir)) === resolve(demoDir)) rmSync(inputDir, { recursive: true, force: true });
  }
  try {
    if (readdirSync(demoDir).length === 0) rmdirSync(demoDir);
  } catch {
    /* no demo folder */
  }
  return removed;
}
