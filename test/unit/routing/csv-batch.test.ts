// The streaming batch-CSV engine end to end: hostile files in, result CSVs read back (with papaparse, an independent parser).
import { mkdtemp, readFile, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, previewCsv, validateCsvFile, type BatchProgress } from '../../../src-main/core/routing/csv-batch';
import { createMemoryDirectory } from '../../../src-main/core/routing/directory';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-batch-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function run(content: string | Buffer, extra: Partial<Parameters<typeof validateCsvFile>[0]> = {}) {
  const base = join(dir, `f${n++}`);
  await writeFile(`${base}.csv`, content);
  const summary = await validateCsvFile({
    input: `${base}.csv`,
    output: `${base}.out.csv`,
    invalidOnlyOutput: `${base}.invalid.csv`,
    directory: null,
    sandbox: true,
    ...extra,
  });
  const read = async (p: string) => Papa.parse<Record<string, string>>(await readFile(p, 'utf8'), { header: true, skipEmptyLines: true });
  const out = await read(`${base}.out.csv`);
  const invalid = await read(`${base}.invalid.csv`);
  expect(out.errors).toEqual([]);
  return { summary, rows: out.data, fields: out.meta.fields ?? [], invalid: invalid.data };
}

describe('validateCsvFile', () => {
  it('handles BOM, CRLF, quoted newlines, empty lines and a plain BIC column', async () => {
    const csv = '\uFEFFbic,note\r\nDEUTDEFF,"two\r\nlines"\r\n\r\n\r\nCHASUS33,x\r\nDEUT12FF,y\r\nUNKNGB2L,z\r\n';
    const { summary, rows, fields, invalid } = await run(csv);
    expect(fields).toEqual(['bic', 'note', 'valid', 'reasons', 'institution_code', 'country_code', 'location_code', 'branch_code', 'bank_name']);
    expect(summary).toMatchObject({ rows: 4, valid: 2, invalid: 2, reasons: { BIC_MALFORMED: 1, TEST_NUMBER_NOT_FOUND: 1 } });
    expect(rows[0]).toMatchObject({ bic: 'DEUTDEFF', note: 'two\r\nlines', valid: 'true', institution_code: 'DEUT', branch_code: 'XXX', bank_name: 'Deutsche Bank AG' });
    expect(rows[1]).toMatchObject({ bic: 'CHASUS33', bank_name: 'JPMorgan Chase Bank, N.A.' });
    expect(rows[2]?.valid).toBe('false');
    expect(rows[2]?.reasons).toMatch(/ISO country code/);
    expect(rows[3]?.reasons).toMatch(/sandbox test data/);
    expect(invalid.map((r) => r.bic)).toEqual(['DEUT12FF', 'UNKNGB2L']);
  });

  it('maps alternate header names and infers each row type', async () => {
    const csv = [
      'Swift Code,RTN,From,To,CCY,Type',
      'BNPAFRPP,,,,,',
      ',021000021,,,,',
      ',,DEUTDEFF,CHASUS33,USD,',
      'BARCGB22,,,,,route',
      ',026009593,,,,aba',
      ',,,,,teleport',
      'DEUTDEFF,021000021,,,,',
    ].join('\n');
    const { summary, rows } = await run(csv);
    expect(rows.map((r) => r.valid)).toEqual(['true', 'true', 'true', 'false', 'true', 'false', 'false']);
    expect(rows[2]?.reasons).toBe('Route: DEUTDEFF > CHASUS33');
    expect(summary.reasons).toMatchObject({ UNKNOWN_ROW_TYPE: 1, AMBIGUOUS_ROW: 1 });
  });

  it('guesses columns of a file without a header and keeps every row', async () => {
    const { rows, fields, summary } = await run('DEUTDEFF,CHASUS33,USD\nBNPAFRPP,HSBCGB2L,USD\nCOBADEFF,CHASUS33,GBP\n');
    expect(fields.slice(0, 3)).toEqual(['column_1', 'column_2', 'column_3']);
    expect(summary).toMatchObject({ rows: 3, valid: 2, invalid: 1, reasons: { NO_ROUTE: 1 } });
    expect(rows[1]?.reasons).toBe('Route: BNPAFRPP > CITIUS33 > HSBCGB2L');

    const single = await run('021000021\nDEUTDEFF\n021000022\n');
    expect(single.rows.map((r) => [r.column_1, r.valid])).toEqual([
      ['021000021', 'true'],
      ['DEUTDEFF', 'true'],
      ['021000022', 'false'],
    ]);
  });

  it('reports stray and unclosed quotes and column overflow as invalid rows without crashing', async () => {
    const csv = 'bic,note\nDEUTDEFF,fine\nCHAS"US33,bad\nBNPAFRPP,ok,extra\n"BARCGB22,never closed\nCITIUS33,after\n';
    const { rows, summary } = await run(csv);
    expect(rows.map((r) => r.valid)).toEqual(['true', 'false', 'false', 'false', 'true']);
    expect(summary.reasons).toMatchObject({ STRAY_QUOTE: 1, COLUMN_COUNT_MISMATCH: 1, UNCLOSED_QUOTE: 1 });
    expect(rows[2]?.note).toBe('ok,extra');
    expect(rows[4]?.bic).toBe('CITIUS33');
  });

  it('neutralises formula injection in every cell it writes', async () => {
    const csv = 'bic,note\n=HYPERLINK("http://x"),+1\n@SUM(A1),-2\n"\tTAB",x\n';
    const { rows } = await run(csv);
    expect(rows.map((r) => r.bic)).toEqual(['\'=HYPERLINK("http://x")', "'@SUM(A1)", "'\tTAB"]);
    expect(rows.map((r) => r.note)).toEqual(["'+1", "'-2", 'x']);
    for (const r of rows) for (const v of Object.values(r)) expect(v).not.toMatch(/^[=+\-@\t\r]/);
    expect(csvCell('=1')).toBe("'=1");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
  });

  it('applies a caller mapping over the detected one', async () => {
    const { rows } = await run('id,code\n1,DEUTDEFF\n2,BADBIC\n', { mapping: { bic: 1 } });
    expect(rows.map((r) => r.valid)).toEqual(['true', 'false']);
  });

  it('answers from a live directory, or structure only without one', async () => {
    const live = createMemoryDirectory('mine', null, {
      bics: [{ bic: 'ZZZZGB2L', bankName: 'Zed Bank', city: null, country: 'GB' }],
      abas: [],
      correspondents: [],
    });
    const withDir = await run('bic\nZZZZGB2L\nDEUTDEFF\n', { sandbox: false, directory: live });
    expect(withDir.rows.map((r) => [r.valid, r.bank_name])).toEqual([
      ['true', 'Zed Bank'],
      ['false', ''],
    ]);
    const bare = await run('bic\nZZZZGB2L\n', { sandbox: false, directory: null });
    expect(bare.rows[0]).toMatchObject({ valid: 'true', bank_name: '', country_code: 'GB' });
  });

  it('validates a generated 5,000-row file, every row accounted for, with progress', async () => {
    const kinds = ['bic,DEUTDEFF,,', 'bic,BAD,,', 'routing,,021000021,', 'routing,,021000022,', 'bic,UNKNGB2L,,'];
    let csv = 'type,bic,routing_number,memo\r\n';
    for (let i = 0; i < 5000; i++) csv += `${kinds[i % 5]}"memo ${i}\nline2"\r\n`;
    const progress: BatchProgress[] = [];
    const { summary, rows, invalid } = await run(csv, { onProgress: (p) => progress.push(p) });
    expect(summary).toMatchObject({ rows: 5000, valid: 2000, invalid: 3000 });
    expect(summary.reasons).toEqual({ BIC_MALFORMED: 1000, ROUTING_NUMBER_CHECKSUM: 1000, TEST_NUMBER_NOT_FOUND: 1000 });
    expect(rows).toHaveLength(5000);
    expect(rows[4999]?.memo).toBe('memo 4999\nline2');
    expect(invalid).toHaveLength(3000);
    expect(progress.at(-1)).toMatchObject({ rows: 5000, percent: 100 });
  });

  it('writes only a header for an empty file', async () => {
    const { summary, rows } = await run('\n\n');
    expect(summary).toMatchObject({ rows: 0, valid: 0, invalid: 0 });
    expect(rows).toEqual([]);
  });

  it('stops on abort, rejects, and removes the partial outputs', async () => {
    const input = join(dir, 'big.csv');
    await writeFile(input, `bic\n${'DEUTDEFF\nUNKNGB2L\n'.repeat(200_000)}`);
    const ac = new AbortController();
    const output = join(dir, 'big.out.csv');
    const p = validateCsvFile({
      input,
      output,
      directory: null,
      sandbox: true,
      signal: ac.signal,
      onProgress: (pr) => {
        if (pr.rows > 0) ac.abort();
      },
    });
    // If progress never fired before the end, abort right away: the run must still reject as aborted.
    queueMicrotask(() => setImmediate(() => ac.abort()));
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await expect(access(output)).rejects.toThrow();

    const pre = new AbortController();
    pre.abort();
    await expect(validateCsvFile({ input, output, directory: null, sandbox: true, signal: pre.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('previewCsv', () => {
  it('returns headers, the first rows and the mapping', async () => {
    const input = join(dir, 'preview.csv');
    await writeFile(input, 'type,swift_code,aba,from_bic,to_bic,currency\n' + 'bic,DEUTDEFF,,,,\n'.repeat(30));
    const p = await previewCsv(input, 5);
    expect(p.headers[1]).toBe('swift_code');
    expect(p.rows).toHaveLength(5);
    expect(p.mapping).toEqual({ type: 0, bic: 1, routing: 2, fromBic: 3, toBic: 4, currency: 5 });
  });
});
