// The batch engine's fast path (quote-free lines answered from a verdict cache keyed by the raw text of the mapped
// columns) must give every row exactly the answer it gets when validated on its own, whatever the neighbours.
import fc from 'fast-check';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateCsvFile } from '../../../src-main/core/routing/csv-batch';
import { createMemoryDirectory, type RoutingDirectory } from '../../../src-main/core/routing/directory';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-fast-path-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function run(content: string, directory: RoutingDirectory | null = null, sandbox = true) {
  const base = join(dir, `f${n++}`);
  await writeFile(`${base}.csv`, content);
  const summary = await validateCsvFile({ input: `${base}.csv`, output: `${base}.out.csv`, invalidOnlyOutput: `${base}.bad.csv`, directory, sandbox });
  const out = await readFile(`${base}.out.csv`, 'utf8');
  const bad = await readFile(`${base}.bad.csv`, 'utf8');
  return { summary, out, bad, lines: out.split('\r\n').filter((l) => l !== '') };
}

const HEADER = 'type,bic,routing_number,from_bic,to_bic,currency,reference';

describe('validateCsvFile fast path', () => {
  it('answers a repeated row from the cache exactly as it answers it alone', async () => {
    // Rows that differ only in an identifier cell, in spacing or case, or only in the unmapped reference column.
    const rows = [
      'bic,DEUTDEFF,,,,,r1',
      'bic,DEUTDEFF,,,,,r2',
      'bic, DEUTDEFF,,,,,r3',
      'bic,deutdeff,,,,,r4',
      'bic,DEUTDEFX,,,,,r5',
      'routing,,021000021,,,,r6',
      'routing,,021000022,,,,r7',
      'route,,,DEUTDEFF,CHASUS33,USD,r8',
      'route,,,DEUTDEFF,CHASUS33,GBP,r9',
      'route,,,DEUTDEFF,CHASUS33,XX,r9',
      'bic,,021000021,,,,r10',
    ];
    const file: string[] = [];
    for (let k = 0; k < 5; k++) for (const r of rows) file.push(r);
    const all = await run(`${HEADER}\n${file.join('\n')}\n`);
    for (const [i, row] of file.entries()) {
      const alone = await run(`${HEADER}\n${row}\n`);
      expect(all.lines[i + 1], row).toBe(alone.lines[1]);
    }
    expect(all.summary.rows).toBe(file.length);
  });

  it('holds for random files: each row as if alone (property)', async () => {
    const cell = fc.constantFrom('bic', 'routing', 'route', '', ' ', 'DEUTDEFF', 'deutdeff', 'CHASUS33', 'DEUT12FF', 'ZZZZGB2L', '021000021', '12345678', 'USD', 'GBP', '=1+2', '-x', 'ref');
    const id = fc.constantFrom('DEUTDEFF', 'CHASUS33', 'BARCGB22', 'deutdeff', 'ZZZZGB2L', 'DEUT12FF', '');
    const typed = fc
      .tuple(fc.constantFrom('route', 'bic', ''), id, fc.constantFrom('', '021000021', '021000022'), id, id, fc.constantFrom('USD', 'GBP', 'EUR', 'usd', 'XX', ''), cell)
      .map((c) => c.join(','));
    const row = fc.oneof(fc.array(cell, { minLength: 7, maxLength: 7 }).map((c) => c.join(',')), typed);
    const directory = createMemoryDirectory('live', null, {
      bics: [{ bic: 'DEUTDEFF', bankName: 'Deutsche, "Bank"', city: null, country: 'DE' }, { bic: 'CHASUS33', bankName: '=Chase', city: null, country: 'US' }],
      abas: [{ routingNumber: '021000021', bankName: 'Chase' }],
      correspondents: [{ bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.9 }],
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 12 }), fc.boolean(), async (rows, live) => {
        const file = rows.flatMap((r) => [r, r]); // every row twice: the second is a cache hit
        const all = await run(`${HEADER}\n${file.join('\n')}\n`, live ? directory : null, !live);
        const expected: string[] = [];
        for (const r of file) {
          const alone = await run(`${HEADER}\n${r}\n`, live ? directory : null, !live);
          expected.push(...alone.lines.slice(1));
        }
        expect(all.lines.slice(1)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });

  it('neutralises a formula cell on a repeated quote-free row', async () => {
    const { lines } = await run(`${HEADER}\nbic,DEUTDEFF,,,,,=HYPERLINK(1)\nbic,DEUTDEFF,,,,,=1+1\nbic,DEUTDEFF,,,,,@SUM(A1)\n`);
    expect(lines[1]?.startsWith("bic,DEUTDEFF,,,,,'=HYPERLINK(1),true")).toBe(true);
    expect(lines[2]?.startsWith("bic,DEUTDEFF,,,,,'=1+1,true")).toBe(true);
    expect(lines[3]?.startsWith("bic,DEUTDEFF,,,,,'@SUM(A1),true")).toBe(true);
  });

  it('keeps short, long and blank quote-free lines on the record rules', async () => {
    const { lines, summary } = await run(`${HEADER}\nbic,DEUTDEFF\nbic,DEUTDEFF,,,,,r,extra\nbic,DEUTDEFF,,,,,r,,\n,,,,,,\n \nbic,DEUTDEFF,,,,,r\n`);
    expect(summary.rows).toBe(4);
    expect(lines[1]).toBe('bic,DEUTDEFF,,,,,,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[2]).toContain(',false,The row has 8 cells but the file has 7 columns.');
    expect(lines[3]).toBe(lines[4]);
    expect(summary.reasons).toEqual({ COLUMN_COUNT_MISMATCH: 1 });
  });

  it('writes the invalid-only file as the invalid rows of the full result, in order', async () => {
    const rows: string[] = [];
    for (let i = 0; i < 3000; i++) rows.push(i % 3 === 0 ? `bic,XXXX${String(i).padStart(4, '0')},,,,,r${i}` : `bic,DEUTDEFF,,,,,r${i}`);
    const { out, bad, summary } = await run(`${HEADER}\r\n${rows.join('\r\n')}\r\n`);
    const full = Papa.parse<string[]>(out.trim()).data;
    const invalid = Papa.parse<string[]>(bad.trim()).data;
    expect(invalid[0]).toEqual(full[0]);
    expect(invalid.slice(1)).toEqual(full.slice(1).filter((r) => r[7] === 'false'));
    expect(invalid.length - 1).toBe(summary.invalid);
    expect(summary).toMatchObject({ rows: 3000, valid: 2000, invalid: 1000 });
  });

  it('keys on the mapped columns wherever they are, for a file with the identifier last', async () => {
    const rows: string[] = [];
    for (let i = 0; i < 50; i++) rows.push(`note ${i},x,${i % 2 ? 'DEUTDEFF' : 'ZZZZGB2L'}`);
    const { lines, summary } = await run(`note,other,swift\n${rows.join('\n')}\n`);
    expect(summary).toMatchObject({ rows: 50, valid: 25, invalid: 25 });
    expect(lines[2]).toBe('note 1,x,DEUTDEFF,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[3]?.startsWith('note 2,x,ZZZZGB2L,false,')).toBe(true);
  });
});
