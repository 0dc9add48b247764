// Directory imports: the three CSV kinds, alternate headers, per-row errors, and the bundled sample files.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryDirectory, detectDirectoryKind, parseDirectoryCsv } from '../../../src-main/core/routing/directory';

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

  it('checks ABA checksums and correspondent confidences', () => {
    const aba = parseDirectoryCsv('rtn,bank_name\n021000021,Chase\n021000022,Typo\n1234,Short\n');
    expect(aba.kind).toBe('aba');
    expect(aba.rows).toHaveLength(1);
    expect(aba.errors).toHaveLength(2);
    const corr = parseDirectoryCsv('bic,correspondent_bic,ccy,score\nDEUTDEFF,CHASUS33,usd,0.5\nDEUTDEFF,CHASUS33,USD,95\nDEUTDEFF,CHASUS33,US,0.1\n');
    expect(corr.rows).toEqual([{ bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.5 }]);
    expect(corr.errors.map((e) => e.line)).toEqual([3, 4]);
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
