// The batch engine's direct line path (bytes copied while scanning, verdicts from a byte-keyed table or written in
// place for new identifiers, quoted cells outside the mapped columns accepted) must write exactly the bytes of the
// record path, which parses every row into cells, re-renders them and calls evaluateRow.
import fc from 'fast-check';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateCsvFile, type ColumnMapping } from '../../../src-main/core/routing/csv-batch';
import { createMemoryDirectory, type RoutingDirectory } from '../../../src-main/core/routing/directory';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-direct-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Mode {
  directory: RoutingDirectory | null;
  sandbox: boolean;
  mapping?: Partial<ColumnMapping>;
}

let n = 0;
/** Both paths over one file; returns the direct path's output after checking it against the record path. */
async function bothPaths(content: string, mode: Mode) {
  const base = join(dir, `f${n++}`);
  await writeFile(`${base}.csv`, content);
  const run = async (directLines: boolean, tag: string) => {
    const summary = await validateCsvFile({
      input: `${base}.csv`,
      output: `${base}.${tag}.csv`,
      invalidOnlyOutput: `${base}.${tag}.bad.csv`,
      ...mode,
      directLines,
    });
    summary.durationMs = 0;
    return { summary, out: await readFile(`${base}.${tag}.csv`), bad: await readFile(`${base}.${tag}.bad.csv`) };
  };
  const reference = await run(false, 'ref');
  const direct = await run(true, 'direct');
  expect(direct.out.toString('utf8')).toBe(reference.out.toString('utf8'));
  expect(direct.out.equals(reference.out)).toBe(true);
  expect(direct.bad.equals(reference.bad)).toBe(true);
  expect(direct.summary).toEqual(reference.summary);
  return { ...direct, lines: direct.out.toString('utf8').split('\r\n') };
}

const directory = (name: string) =>
  createMemoryDirectory(name, null, {
    bics: [
      { bic: 'DEUTDEFF', bankName: 'Deutsche, "Bank"', city: null, country: 'DE' },
      { bic: 'CHASUS33', bankName: '=Chase', city: null, country: 'US' },
      { bic: 'ZZZZGB2L', bankName: 'Zéd Bank', city: null, country: 'GB' },
      { bic: 'BARCGB22', bankName: ' Barclays ', city: null, country: 'GB' },
    ],
    abas: [
      { routingNumber: '021000021', bankName: 'Chase' },
      { routingNumber: '026009593', bankName: 'Bank "of" America, N.A.' },
    ],
    correspondents: [{ bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.9 }],
  });

const MODES: Record<string, () => Mode> = {
  sandbox: () => ({ directory: null, sandbox: true }),
  sandboxWithDirectory: () => ({ directory: directory('s'), sandbox: true }),
  live: () => ({ directory: directory('mine'), sandbox: false }),
  liveQuotedName: () => ({ directory: directory('my "dir", é '), sandbox: false }),
  liveWithoutDirectory: () => ({ directory: null, sandbox: false }),
};

const HEADER = 'type,bic,routing_number,from_bic,to_bic,currency,reference';

describe('validateCsvFile direct line path', () => {
  it('writes what the record path writes for random hostile files (property)', async () => {
    const cell = fc.oneof(
      fc.constantFrom(
        'bic', 'routing', 'route', 'BIC', 'swift', 'aba', ' bic', '', ' ', '\t',
        'DEUTDEFF', 'deutdeff', 'CHASUS33', 'ZZZZGB2L', 'BARCGB22', 'DEUTDEFF500', 'DEUTDEFFXXX', 'AAAAUS33', 'AAAAXX33', 'AAAAUS3', 'DEUT12FF', ' DEUTDEFF', 'DEUTDEFF ',
        '021000021', '026009593', '020000077', '021000022', '12345678', '001234567', '800000000', '130000000', '021-000-021',
        'USD', 'GBP', 'usd', 'XX', '=1+2', '-x', '+1', '@a', 'ref', 'é', '\u00a0', '\u3000DEUTDEFF', '😀', 'a"b', 'x\ry', '\x01', '\x7f',
        '"q"', '"a,b"', '"a""b"', '""', '" x"', '"x "', '"x\t"', '"=x,"', '"é,"', '"\u00a0,"', '"a\r\nb"', '"a\nb"', '"  "', '"unclosed',
      ),
      fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'Z', '0', ',', '"', ' ', '\t', '\r', '\n', '=', 'é', '\u00a0') }),
      fc.string({ maxLength: 5, unit: fc.constantFrom('a', ',', '"', ' ', '\t', '=', '-', 'é', '\r', '\n') }).map((s) => `"${s.replaceAll('"', '""')}"`),
    );
    const loose = fc.array(cell, { maxLength: 9 }).map((c) => c.join(','));
    const typed = fc
      .tuple(fc.constantFrom('bic', 'routing', 'route', '', 'aba'), cell, cell, cell, cell, fc.constantFrom('USD', 'GBP', 'usd', 'XX', ''), cell)
      .map((c) => c.join(','));
    const header = fc.constantFrom(HEADER, 'reference,type,bic,routing_number,from_bic,to_bic,currency', 'bic,note', 'note,other,swift', 'from,to,ccy,note', 'x,y,z', '');
    const file = fc
      .tuple(header, fc.array(fc.tuple(fc.oneof(loose, typed, typed), fc.constantFrom('\n', '\r\n', '\n\n', '\r', '')), { maxLength: 25 }), fc.boolean())
      .map(([h, rows, bom]) => (bom ? '\uFEFF' : '') + (h ? `${h}\n` : '') + rows.map(([r, s]) => r + s).join(''));
    const mapping = fc.option(fc.constantFrom<Partial<ColumnMapping>>({ bic: 1 }, { bic: 0, routing: 0 }, { type: null }, { bic: null }, { bic: 10 }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(file, fc.constantFrom(...Object.keys(MODES)), mapping, async (content, mode, m) => {
        await bothPaths(content, { ...MODES[mode]!(), ...(m ? { mapping: m } : {}) });
      }),
      { numRuns: 120 },
    );
  });

  it('writes what the record path writes past the first chunk, where lines are read as bytes (property)', async () => {
    // The first 256 KiB go through the text parser (BOM, header); hostile rows after a padding of random length
    // land anywhere around the next chunk boundaries.
    const pad = (size: number) => {
      let t = '';
      for (let i = 0; t.length < size; i++) t += i % 3 ? `bic,DEUTDEFF,,,,,p${i}\n` : `routing,,0210000${String(i % 100).padStart(2, '0')},,,,"p ${i}, x"\n`;
      return t;
    };
    const cell = fc.constantFrom('bic', 'routing', 'DEUTDEFF', 'AAAAUS33', '020000077', ' x', '=1', '"a,b"', '"q"', '"a\nb"', '"open', 'a"b', 'é', '\u00a0', '😀', '', 'USD');
    const rows = fc
      .array(fc.tuple(fc.array(cell, { minLength: 1, maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\n\n')), { minLength: 1, maxLength: 30 })
      .map((rs) => rs.map(([cells, sep]) => cells.join(',') + sep).join(''));
    const odd = fc.constantFrom('', `"${'q'.repeat(70_000)}"\n`, `${'x'.repeat(70_000)}\n`, `bic,"multi\nline",,,,,r\n`, `${'é'.repeat(40_000)}\n`, 'bic,ZZZZGB2L,,,,,ü€😀\n'.repeat(20));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 250_000, max: 270_000 }), rows, odd, rows, fc.constantFrom('sandbox', 'liveQuotedName'), async (size, a, x, b, mode) => {
        await bothPaths(`${HEADER}\n${pad(size)}${a}${x}${pad(size >> 2)}${b}`, MODES[mode]!());
      }),
      { numRuns: 12 },
    );
  });

  it('leaves a line that is not valid UTF-8 to the decoder and the record path', async () => {
    const head = Buffer.from(`${HEADER}\n${'bic,DEUTDEFF,,,,,pad\n'.repeat(15_000)}`);
    const bad = Buffer.from([...Buffer.from('bic,DEUTDEFF,,,,,'), 0xff, 0xfe, 0x0a, ...Buffer.from('bic,DEUTDEFF,,,,,\u00e9\n')]);
    const base = join(dir, `f${n++}`);
    await writeFile(`${base}.csv`, Buffer.concat([head, bad]));
    const summary = await validateCsvFile({ input: `${base}.csv`, output: `${base}.out.csv`, directory: null, sandbox: true });
    const out = await readFile(`${base}.out.csv`);
    // Bytes, not decoded text: the raw 0xFF 0xFE would read back as U+FFFD too.
    expect(out.includes(Buffer.from([0xff, 0xfe]))).toBe(false);
    const lines = out.toString('utf8').split('\r\n');
    expect(summary.rows).toBe(15_002);
    expect(lines[15_001]).toBe('bic,DEUTDEFF,,,,,\ufffd\ufffd,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[15_002]).toBe('bic,DEUTDEFF,,,,,é,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
  });

  it('copies a line whose only quoted cell is unmapped and already as csvCell writes it, re-renders one that is not', async () => {
    const rows = [
      'bic,DEUTDEFF,,,,,"ref 1, batch ""A"""',
      'bic,DEUTDEFF,,,,,"plain"',
      'bic,DEUTDEFF,,,,,"trailing tab\t"',
      'bic,"DEUTDEFF",,,,,r',
      'bic, DEUTDEFF,,,,,"a,b"',
      'bic,DEUTDEFF,,,,,"=1,2"',
      'bic,DEUTDEFF,,,,,"é, ü"',
    ];
    const { lines } = await bothPaths(`${HEADER}\n${rows.join('\n')}\n`, MODES.sandbox!());
    expect(lines[1]).toBe('bic,DEUTDEFF,,,,,"ref 1, batch ""A""",true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[2]).toBe('bic,DEUTDEFF,,,,,plain,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[4]).toBe('bic,DEUTDEFF,,,,,r,true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
    expect(lines[5]?.startsWith('bic," DEUTDEFF",,,,,"a,b",true')).toBe(true);
    expect(lines[6]?.startsWith(`bic,DEUTDEFF,,,,,"'=1,2",true`)).toBe(true);
    expect(lines[7]).toBe('bic,DEUTDEFF,,,,,"é, ü",true,,DEUT,DE,FF,XXX,Deutsche Bank AG');
  });

  it('writes new identifiers in place as evaluateRow words them, in sandbox and in live', async () => {
    const rows = ['bic,AAAAUS33,,,,,r', 'bic,ZZZZGB2L,,,,,r', 'bic,BARCGB22LON,,,,,r', 'routing,,020000077,,,,r', 'routing,,026009593,,,,r', 'route,,,AAAADEFF,CHASUS33,USD,r', 'route,,,AAAADEFF,BBBBDEFF,USD,r', 'bic,DEUTDEFFX12,,,,,r'];
    const sandbox = await bothPaths(`${HEADER}\n${rows.join('\n')}\n`, MODES.sandbox!());
    expect(sandbox.lines[1]).toBe('bic,AAAAUS33,,,,,r,false,The BIC AAAAUS33 is not in the sandbox test data. See GET /api/v1/sandbox/fixtures.,AAAA,US,33,XXX,');
    expect(sandbox.lines[7]).toBe('route,,,AAAADEFF,BBBBDEFF,USD,r,false,The BIC AAAADEFF and BBBBDEFF is not in the sandbox test data. See GET /api/v1/sandbox/fixtures.,,,,,');
    const live = await bothPaths(`${HEADER}\n${rows.join('\n')}\n`, MODES.liveQuotedName!());
    expect(live.lines[1]).toBe('bic,AAAAUS33,,,,,r,false,"The BIC AAAAUS33 is not in the routing directory ""my ""dir"", é "".",AAAA,US,33,XXX,');
    expect(live.lines[2]).toBe('bic,ZZZZGB2L,,,,,r,true,,ZZZZ,GB,2L,XXX,Zéd Bank');
    expect(live.lines[3]).toBe('bic,BARCGB22LON,,,,,r,true,,BARC,GB,22,LON," Barclays "');
    expect(live.lines[5]).toBe('routing,,026009593,,,,r,true,,,,,,"Bank ""of"" America, N.A."');
    // A branch code may start with X only as XXX (ISO 9362): both paths refuse it.
    expect(live.lines[8]).toMatch(/^bic,DEUTDEFFX12,,,,,r,false,.*may start with X only as XXX/);
    expect(live.summary.reasons).toEqual({ NOT_IN_DIRECTORY: 2, NO_ROUTE: 2, BIC_MALFORMED: 1 });
  });

  it('keeps every row across output buffers, caches and one-off identifiers (a file of several MiB)', async () => {
    const rows: string[] = [HEADER];
    for (let i = 0; i < 40_000; i++) {
      const letter = String.fromCharCode(65 + (i % 26));
      const ref = i % 5 === 0 ? `"ref ${i}, é"` : `r${i}-${'x'.repeat(i % 90)}`;
      if (i % 3 === 0) rows.push(`bic,${letter}${String.fromCharCode(65 + ((i >> 5) % 26))}AAUS33,,,,,${ref}`);
      else if (i % 3 === 1) rows.push(`routing,,02${String(i % 5000).padStart(7, '0')},,,,${ref}`);
      else rows.push(`route,,,AAA${letter}DEFF,CHASUS33,USD,${ref}`);
    }
    for (const mode of ['sandbox', 'live'] as const) {
      const { summary, out } = await bothPaths(`${rows.join('\r\n')}\r\n`, MODES[mode]!());
      expect(summary.rows).toBe(40_000);
      expect(out.length).toBeGreaterThan(4 * 2 ** 20);
    }
  });
});
