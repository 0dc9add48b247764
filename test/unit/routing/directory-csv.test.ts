// Directory imports: the three CSV kinds, alternate headers, per-row errors, and the bundled sample files.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { evaluateRoutingNumber } from '../../../src-main/core/routing/checks';
import { createMemoryDirectory, detectDirectoryKind, parseDirectoryCsv, type AbaEntry, type BicEntry, type CorrespondentEntry } from '../../../src-main/core/routing/directory';

const sample = (name: string) => readFile(new URL(`../../../resources/routing/${name}`, import.meta.url), 'utf8');

describe('parseDirectoryCsv', () => {
  it('reads the bundled samples without errors', async () => {
    const bic = parseDirectoryCsv(await sample('sample-bic-directory.csv'));
    const aba = parseDirectoryCsv(await sample('sample-aba-directory.csv'));
    const corr = parseDirectoryCsv(await sample('sample-correspondents.csv'));
    expect([bic.kind, aba.kind, corr.kind]).toEqual(['bic', 'aba', 'correspondents']);
    expect([bic.errors, aba.errors, corr.errors]).toEqual([[], [], []]);
    expect(bic.rows).toContainEqual({ bic: 'CHASUS33', bankName: 'JPMorgan Chase Bank, N.A.', city: 'New York', country: 'US' });
    expect(aba.rows).toHaveLength(7);
  });

  it('accepts alternate header names and reports bad rows by line', () => {
    const r = parseDirectoryCsv('SWIFT Code,Institution,Town\ndeutdeff,Deutsche Bank AG,Frankfurt\nDEUT12FF,Bad,X\nBNPAFRPP,,Paris\n', 'bic');
    expect(r.rows).toEqual([{ bic: 'DEUTDEFF', bankName: 'Deutsche Bank AG', city: 'Frankfurt', country: 'DE' }]);
    expect(r.errors.map((e) => e.line)).toEqual([3, 4]);
  });

  it('reads a semicolon-, tab- or pipe-separated directory as a comma one (was: "Missing column(s): bic", found by the console review)', () => {
    for (const d of [';', '\t', '|']) {
      const r = parseDirectoryCsv(['bic', 'bank_name', 'city', 'country'].join(d) + '\n' + ['DEUTDEFF', 'Deutsche Bank, AG', 'Frankfurt', 'DE'].join(d) + '\n' + ['BNPAFRPP', 'BNP Paribas', 'Paris', 'FR'].join(d) + '\n');
      expect([r.kind, r.errors, (r.rows as BicEntry[]).map((x) => x.bic)], JSON.stringify(d)).toEqual(['bic', [], ['DEUTDEFF', 'BNPAFRPP']]);
      expect((r.rows[0] as BicEntry).bankName).toBe('Deutsche Bank, AG');
    }
  });

  it('checks ABA checksums and correspondent confidences', () => {
    const aba = parseDirectoryCsv('rtn,bank_name\n021000021,Chase\n021000022,Typo\n1234,Short\n');
    expect(aba.kind).toBe('aba');
    expect(aba.rows).toHaveLength(1);
    expect(aba.errors).toHaveLength(2);
    const corr = parseDirectoryCsv('bic,correspondent_bic,ccy,score\nDEUTDEFF,CHASUS33,usd,0.5\nDEUTDEFF,CHASUS33,USD,95\nDEUTDEFF,CHASUS33,US,0.1\n');
    expect(corr.rows).toEqual([{ bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.5 }]);
    expect(corr.errors.map((e) => e.line)).toEqual([3, 4]);
  });

  it('refuses a repeated entry naming the line it repeats, and keeps the first (was: the last row silently won)', () => {
    const bic = parseDirectoryCsv('bic,bank_name\nDEUTDEFF,First\nCHASUS33,Chase\ndeutdeff,Second\nDEUTDEFFXXX,Third\nDEUTDEFF500,Branch\n');
    expect((bic.rows as BicEntry[]).map((r) => `${r.bic}=${r.bankName}`)).toEqual(['DEUTDEFF=First', 'CHASUS33=Chase', 'DEUTDEFF500=Branch']);
    // An 8-character BIC and its XXX form are one office.
    expect(bic.errors).toEqual([
      { line: 4, message: 'The BIC DEUTDEFF repeats line 2; the first row is kept.' },
      { line: 5, message: 'The BIC DEUTDEFFXXX repeats line 2; the first row is kept.' },
    ]);
    const aba = parseDirectoryCsv('routing_number,bank_name\n021000021,Chase\n021000021,Chase again\n');
    expect(aba.rows).toEqual([{ routingNumber: '021000021', bankName: 'Chase', city: null, state: null }]);
    expect(aba.errors).toEqual([{ line: 3, message: 'The routing number 021000021 repeats line 2; the first row is kept.' }]);
    const corr = parseDirectoryCsv('bic,correspondent_bic,currency,confidence\nDEUTDEFF,CHASUS33,USD,0.9\nDEUTDEFF,CHASUS33,EUR,0.8\nDEUTDEFFXXX,CHASUS33,usd,0.2\n');
    expect((corr.rows as CorrespondentEntry[]).map((r) => `${r.currency}:${r.confidence}`)).toEqual(['USD:0.9', 'EUR:0.8']);
    expect(corr.errors).toEqual([{ line: 4, message: 'The relationship DEUTDEFFXXX holds USD at CHASUS33 repeats line 2; the first row is kept.' }]);
  });

  it('imports only routing numbers the live check accepts (was: 131000005 imported, then refused by every check)', () => {
    const numbers = ['021000021', '131000005', '011000015', '001000001', '800000004', '991000008', '021000022', '12345678', '02100002a', '211000000', '711000001'];
    const r = parseDirectoryCsv(`routing_number,bank_name\n${numbers.map((n) => `${n},Bank`).join('\n')}\n`, 'aba');
    const live = { directory: null, sandbox: false };
    // The same rule: a row is imported exactly when the live check (without a directory) calls the number valid,
    // and a refused row gives the check's reasons.
    expect((r.rows as AbaEntry[]).map((e) => e.routingNumber)).toEqual(numbers.filter((n) => evaluateRoutingNumber(n, live).result.valid));
    for (const e of r.errors) {
      const n = numbers[e.line - 2]!;
      expect(e.message).toBe((evaluateRoutingNumber(n, live).result.reasons ?? []).join(' '));
    }
    expect(r.errors.find((e) => e.line === 3)?.message).toMatch(/cannot start with 13/);
    expect((r.rows as AbaEntry[]).map((e) => e.routingNumber)).toContain('021000021');
  });

  it('refuses a file without the required columns', () => {
    expect(detectDirectoryKind(['foo', 'bar'])).toBeNull();
    const r = parseDirectoryCsv('foo,bar\n1,2\n', 'bic');
    expect(r.rows).toEqual([]);
    expect(r.errors[0]?.message).toMatch(/Missing column/);
  });
});

describe('createMemoryDirectory', () => {
  const d = createMemoryDirectory('t', null, {
    bics: [{ bic: 'DEUTDEFFXXX', bankName: 'Head office', city: null, country: 'DE' }],
    abas: [],
    correspondents: [
      { bic: 'DEUTDEFF', correspondentBic: 'CITIUS33', currency: 'USD', confidence: 0.5 },
      { bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.9 },
    ],
  });
  it('falls back from an 11-character branch to the primary office', () => {
    expect(d.findBic('DEUTDEFF')?.bankName).toBe('Head office');
    expect(d.findBic('deutdeff123')?.bankName).toBe('Head office');
    expect(d.findBic('COBADEFF')).toBeNull();
    expect(d.correspondentsOf('DEUTDEFF123', 'usd').map((c) => c.correspondentBic)).toEqual(['CHASUS33', 'CITIUS33']);
  });
});
