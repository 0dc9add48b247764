// `vconsole batch validate` and `vconsole routing import` as a user runs them: spawned `node bin/vconsole.mjs`
// on small generated files and a temp data dir. Exit codes 0 all valid / 1 some invalid / 2 unusable input.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
const dataDir = () => join(dir, 'data');

const bin = join(process.cwd(), 'bin', 'vconsole.mjs');
function vconsole(...args: string[]) {
  return vconsoleIn(process.cwd(), ...args);
}
function vconsoleIn(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, VCONSOLE_DATA_DIR: dataDir() } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vc-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('vconsole batch validate', () => {
  it('exits 0 when every row is valid and writes the result next to the input', () => {
    const input = join(dir, 'ok.csv');
    writeFileSync(input, 'bic,routing_number\nDEUTDEFF,\n,021000021\nchasus33,\n');
    const r = vconsole('batch', 'validate', input);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 valid, 0 invalid');
    const out = join(dir, 'ok.results.csv');
    const parsed = Papa.parse<string[]>(readFileSync(out, 'utf8').trim()).data;
    expect(parsed[0]).toEqual(['bic', 'routing_number', 'valid', 'reasons', 'institution_code', 'country_code', 'location_code', 'branch_code', 'bank_name']);
    expect(parsed.slice(1).map((row) => row[2])).toEqual(['true', 'true', 'true']);
  });

  it('exits 1 when some rows are invalid, with a JSON summary, an invalid-only file and neutralised formulas', () => {
    const input = join(dir, 'mixed.csv');
    const out = join(dir, 'mixed-out.csv');
    const invalidOut = join(dir, 'mixed-invalid.csv');
    writeFileSync(input, 'note,bic\n=1+2,DEUTDEFF\n@SUM(A1),DEUT12FF\n-cmd,UNKNGB2L\n');
    const r = vconsole('batch', 'validate', input, '--out', out, '--invalid-out', invalidOut, '--json');
    expect(r.code, r.stderr).toBe(1);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ rows: 3, valid: 1, invalid: 2, reasons: { BIC_MALFORMED: 1, TEST_NUMBER_NOT_FOUND: 1 }, output: out });
    const rows = Papa.parse<string[]>(readFileSync(out, 'utf8').trim()).data;
    // OWASP CSV injection: cells starting with = + - @ get a leading apostrophe.
    expect(rows.slice(1).map((row) => row[0])).toEqual(["'=1+2", "'@SUM(A1)", "'-cmd"]);
    const invalid = Papa.parse<string[]>(readFileSync(invalidOut, 'utf8').trim()).data;
    expect(invalid.slice(1).map((row) => row[1])).toEqual(['DEUT12FF', 'UNKNGB2L']);
  });

  it('prints plain progress lines and a summary when stderr is not a TTY', () => {
    const input = join(dir, 'plain.csv');
    writeFileSync(input, 'bic\nDEUTDEFF\n');
    const r = vconsole('batch', 'validate', input);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).toMatch(/^progress: 100\.0% 1 rows /m);
    expect(r.stdout).toMatch(/Checked 1 row\(s\) against the sandbox test data/);
  });

  it('exits 2 for unusable input: a missing file, an empty file, no file argument', () => {
    expect(vconsole('batch', 'validate', join(dir, 'missing.csv')).code).toBe(2);
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    expect(vconsole('batch', 'validate', empty).code).toBe(2);
    expect(vconsole('batch', 'validate').code).toBe(2);
    expect(vconsole('batch', 'frobnicate').code).toBe(2);
  });

  it('refuses an --out or --invalid-out that is the input by another spelling or a symlink, or both the same file, and leaves the input as it was', () => {
    const work = join(dir, 'same');
    mkdirSync(work);
    const rows = 'bic\nDEUTDEFF\nDEUT12FF\n=cmd\n';
    writeFileSync(join(work, 'b1.csv'), rows);
    symlinkSync('b1.csv', join(work, 'link.csv'));
    const attempts: string[][] = [
      ['b1.csv', '--out', './b1.csv'],
      ['b1.csv', '--out', join(work, 'b1.csv')],
      ['b1.csv', '--invalid-out', join(work, 'b1.csv')],
      ['./b1.csv', '--out', '../same/b1.csv'],
      ['link.csv', '--out', 'b1.csv'],
      ['b1.csv', '--out', 'link.csv'],
      ['b1.csv', '--out', 'r.csv', '--invalid-out', './r.csv'],
    ];
    for (const a of attempts) {
      const r = vconsoleIn(work, 'batch', 'validate', ...a);
      expect(r.code, `${a.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/must not overwrite the input|must be different files/);
      expect(r.stdout).not.toContain('Results:');
      expect(readFileSync(join(work, 'b1.csv'), 'utf8')).toBe(rows);
    }
    // Nothing was written: no result file, no temp file.
    expect(readdirSync(work).sort()).toEqual(['b1.csv', 'link.csv']);
    // Distinct files still work, through temp files renamed into place.
    const ok = vconsoleIn(work, 'batch', 'validate', 'b1.csv', '--out', 'r.csv', '--invalid-out', 'bad.csv');
    expect(ok.code, ok.stderr).toBe(1);
    expect(readdirSync(work).sort()).toEqual(['b1.csv', 'bad.csv', 'link.csv', 'r.csv']);
    expect(readFileSync(join(work, 'b1.csv'), 'utf8')).toBe(rows);
  });

  it('keeps a finished run\'s results, and says where, when the output cannot be replaced', () => {
    const input = join(dir, 'keep.csv');
    writeFileSync(input, 'bic\nDEUTDEFF\n');
    // An output that cannot be replaced by a rename (a folder that holds a file; on Windows, a CSV open in a spreadsheet).
    const blocked = join(dir, 'blocked.csv');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'inside.txt'), 'x');
    const r = vconsole('batch', 'validate', input, '--out', blocked);
    expect(r.code, r.stderr).toBe(2);
    const kept = /They are kept as: (\S+) \(meant for/.exec(r.stderr)?.[1];
    expect(kept, r.stderr).toBeDefined();
    expect(readFileSync(kept!, 'utf8')).toContain('DEUTDEFF');
    rmSync(kept!);
  });

  it('writes and announces no result file for an empty input', () => {
    const work = join(dir, 'empty-out');
    mkdirSync(work);
    writeFileSync(join(work, 'empty.csv'), '');
    writeFileSync(join(work, 'header.csv'), 'bic\n');
    for (const f of ['empty.csv', 'header.csv']) {
      const r = vconsoleIn(work, 'batch', 'validate', f, '--invalid-out', 'bad.csv');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).not.toContain('Results:');
      expect(r.stderr).toMatch(/no row to check|empty/);
    }
    expect(readdirSync(work).sort()).toEqual(['empty.csv', 'header.csv']);
  });
});

describe('vconsole routing import', () => {
  it('imports a directory into the store, reports refused rows, and live batches use it', () => {
    const boot = vconsole('bootstrap', '--data-dir', dataDir(), '--email', 'owner@example.com', '--password', 'correct horse battery', '--json');
    expect(boot.code, boot.stderr).toBe(0);

    const file = join(dir, 'banks.csv');
    writeFileSync(file, 'SWIFT Code,Bank Name,City\nDEUTDEFF,Deutsche Bank AG,Frankfurt\nDEUT12FF,Broken,Nowhere\nBARCGB22,Barclays Bank PLC,London\n');
    const r = vconsole('routing', 'import', file, '--data-dir', dataDir(), '--json');
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res).toMatchObject({ kind: 'bic', rows: 2, errors: 1, name: 'banks.csv', current: true });
    expect(res.rowErrors[0].line).toBe(3);

    const text = vconsole('routing', 'import', join(process.cwd(), 'resources/routing/sample-aba-directory.csv'), '--kind', 'aba', '--data-dir', dataDir());
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('aba directory row');

    const input = join(dir, 'live.csv');
    writeFileSync(input, 'bic\nDEUTDEFF\nHSBCGB2L\n');
    const live = vconsole('batch', 'validate', input, '--live', '--data-dir', dataDir(), '--json');
    expect(live.code, live.stderr).toBe(1);
    expect(JSON.parse(live.stdout)).toMatchObject({ rows: 2, valid: 1, invalid: 1, reasons: { NOT_IN_DIRECTORY: 1 }, environment: 'live' });
  });

  it('exits 2 on a bad --kind or a missing file, and 1 when no row is usable', () => {
    expect(vconsole('routing', 'import', join(dir, 'nope.csv'), '--data-dir', dataDir()).code).toBe(2);
    const file = join(dir, 'banks2.csv');
    writeFileSync(file, 'bic,bank_name\nDEUTDEFF,Deutsche Bank AG\n');
    expect(vconsole('routing', 'import', file, '--kind', 'iban', '--data-dir', dataDir()).code).toBe(2);
    const junk = join(dir, 'junk.csv');
    writeFileSync(junk, 'bic,bank_name\nnot-a-bic,Nobody\n');
    const r = vconsole('routing', 'import', junk, '--data-dir', dataDir());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing was imported');
    expect(existsSync(join(dataDir(), 'verification-console.sqlite'))).toBe(true);
  });
});
