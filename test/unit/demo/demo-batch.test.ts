// The demo's payouts file (issue 23, docs/demo.md "The batch"): the same shape for every seed — 300 rows, 20 invalid
// with the documented reasons through the real CSV engine — and the file removal that never leaves the two folders
// the demo owns (<dataDir>/batches/<id>/ and <dataDir>/demo/), whatever a row says.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { demoBatchCsv, demoFilesDir, removeDemoBatchFiles, DEMO_BATCH_ROWS } from '../../../src-main/core/demo/demo-batch';
import { validateCsvFile } from '../../../src-main/core/routing/csv-batch';
import { sandboxDirectory } from '../../../src-main/core/routing/sandbox-directory';
import { seededRandom } from '../../../src-shared/seeded-random';

const dirs: string[] = [];
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'vc-demo-batch-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the demo payouts file', () => {
  for (const seed of [7, 1, 2 ** 31 - 1]) {
    it(`has 300 payees, 20 of them invalid for the documented reasons (seed ${seed})`, async () => {
      const file = demoBatchCsv(seededRandom(seed), Date.parse('2026-11-24T12:00:00Z'));
      expect(file.name).toBe('supplier-payouts-2026-11.csv');
      expect(file.rows).toBe(DEMO_BATCH_ROWS);
      // An independent reader sees the same table: a header and 300 rows of 7 cells (quoted names included).
      const parsed = Papa.parse<string[]>(file.text.trimEnd(), { skipEmptyLines: true });
      expect(parsed.errors).toEqual([]);
      expect(parsed.data[0]).toEqual(['payee_ref', 'payee_name', 'country', 'currency', 'amount', 'bic', 'routing_number']);
      expect(parsed.data).toHaveLength(1 + DEMO_BATCH_ROWS);
      expect(parsed.data.every((r) => r.length === 7)).toBe(true);
      expect(parsed.data.some((r) => r[1]!.includes(','))).toBe(true);
      const dir = temp();
      writeFileSync(join(dir, file.name), file.text);
      const summary = await validateCsvFile({ input: join(dir, file.name), output: join(dir, 'out.csv'), sandbox: true, directory: sandboxDirectory() });
      expect(summary).toMatchObject({ rows: 300, valid: 280, invalid: 20 });
      expect(summary.reasons).toEqual({ ROUTING_NUMBER_FORMAT: 5, ROUTING_NUMBER_CHECKSUM: 4, BIC_MALFORMED: 4, TEST_NUMBER_NOT_FOUND: 4, AMBIGUOUS_ROW: 2, MISSING_IDENTIFIER: 1 });
    });
  }

  it('is the same file for the same seed and day', () => {
    const a = demoBatchCsv(seededRandom(42), Date.parse('2026-11-24T12:00:00Z'));
    const b = demoBatchCsv(seededRandom(42), Date.parse('2026-11-24T12:00:00Z'));
    expect(a).toEqual(b);
  });
});

describe('removing the demo batches’ files', () => {
  it('deletes the batch folders and the demo input folders, nothing outside them', () => {
    const dataDir = temp();
    const outside = temp();
    const own = join(dataDir, 'batches', 'bat_demo1');
    const users = join(dataDir, 'batches', 'bat_user1');
    const input = join(demoFilesDir(dataDir), 'abc123', 'supplier-payouts-2026-11.csv');
    const usersInput = join(outside, 'payees.csv');
    const upload = join(dataDir, 'uploads', 'ff00', 'payees.csv');
    for (const f of [join(own, 'results.csv'), join(users, 'results.csv'), input, usersInput, upload]) {
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, 'x');
    }
    const n = removeDemoBatchFiles(dataDir, [
      { id: 'bat_demo1', inputPath: input },
      // Rows that would point elsewhere (never written by the loader) touch nothing.
      { id: '../uploads', inputPath: usersInput },
      { id: 'bat_x', inputPath: upload },
      { id: 'bat_y', inputPath: join(demoFilesDir(dataDir), '..', 'batches', 'bat_user1', 'results.csv') },
    ]);
    expect(n).toBe(1);
    expect(existsSync(own)).toBe(false);
    expect(existsSync(demoFilesDir(dataDir))).toBe(false);
    expect(readFileSync(join(users, 'results.csv'), 'utf8')).toBe('x');
    expect(readFileSync(usersInput, 'utf8')).toBe('x');
    expect(readFileSync(upload, 'utf8')).toBe('x');
  });

  it('keeps the demo folder while it holds anything else', () => {
    const dataDir = temp();
    const input = join(demoFilesDir(dataDir), 'a1', 'supplier-payouts-2026-11.csv');
    const other = join(demoFilesDir(dataDir), 'b2', 'supplier-payouts-2026-10.csv');
    for (const f of [input, other]) {
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, 'x');
    }
    removeDemoBatchFiles(dataDir, [{ id: 'bat_1', inputPath: input }]);
    expect(existsSync(join(input, '..'))).toBe(false);
    expect(existsSync(other)).toBe(true);
  });
});
