// Files a user names for a directory import or a batch CSV are stat'ed before they are opened or read: a pipe, a
// device or a folder is refused at once with a clear message (a FIFO's open used to block the main process until a
// writer came, /dev/zero to be read up to 2 GiB), and a directory file over its size limit is refused by its size,
// before a byte of it is read (docs/routing.md, "Files the user names").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvInputProblem, planCsvInput, previewCsvInput } from '../../../src-main/core/routing/csv-input';
import { importDirectoryCsv, listDirectoryImports, MAX_DIRECTORY_BYTES } from '../../../src-main/core/routing/directory-store';
import { openDatabase } from '../../../src-main/store/database';
import { testDeps } from '../../helpers/core-deps';

const ORG = 'org_files';
let dir: string;
let deps: ReturnType<typeof testDeps>;
let fifo: string;
const writers: ChildProcess[] = [];

/**
 * A writer that holds the pipe open for 3 s, then closes it: code that opens the pipe (as it used to) waits for it
 * and then reads an empty file, instead of blocking forever, so that the test ends either way. One per use.
 */
function pipeWriter(): void {
  writers.push(spawn('sh', ['-c', `sleep 3 > '${fifo}'`], { stdio: 'ignore' }));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'routing-files-'));
  deps = testDeps({ db: openDatabase(join(dir, 'store.db')) });
  deps.db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES (?, 'A', '2026-01-01T00:00:00Z')`).run(ORG);
  fifo = join(dir, 'pipe.csv');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
});

afterAll(() => {
  for (const w of writers) if (w.exitCode === null) w.kill();
  deps.db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The refusal a call throws, and how long it took. */
function refusal(f: () => unknown): { error: unknown; ms: number } {
  const t0 = Date.now();
  try {
    f();
  } catch (error) {
    return { error, ms: Date.now() - t0 };
  }
  throw new Error('expected a refusal');
}

async function importRefusal(path: string): Promise<{ message: string; ms: number }> {
  const t0 = Date.now();
  try {
    await importDirectoryCsv(deps, ORG, { path }, 'bic');
  } catch (e) {
    const details = (e as { details?: { message: string }[] }).details ?? [];
    return { message: details.map((d) => d.message).join(' '), ms: Date.now() - t0 };
  }
  throw new Error('expected a refusal');
}

describe('directory import', () => {
  it('refuses a pipe, a device and a folder at once, without opening them', async () => {
    pipeWriter();
    const pipe = await importRefusal(fifo);
    expect(pipe.message).toBe('cannot import pipe.csv: it is a pipe, not a regular file');
    expect(pipe.ms).toBeLessThan(1000);
    expect((await importRefusal('/dev/zero')).message).toBe('cannot import zero: it is a device, not a regular file');
    expect((await importRefusal('/dev/null')).message).toMatch(/it is a device, not a regular file/);
    expect((await importRefusal(dir)).message).toMatch(/it is a folder, not a regular file/);
    expect(await listDirectoryImports(deps, ORG)).toEqual([]);
  });

  it(`refuses a file over ${MAX_DIRECTORY_BYTES / 1024 / 1024} MiB by its size, before reading it`, async () => {
    // Sparse: 3 GiB on the file's size, nothing on disk. Read whole, it used to fail on Node's 2 GiB buffer limit.
    const big = join(dir, 'big.csv');
    writeFileSync(big, 'bic,bank_name\nDEUTDEFF,Deutsche Bank\n');
    const fd = openSync(big, 'r+');
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    const r = await importRefusal(big);
    expect(r.message).toBe(`a directory file may hold at most ${MAX_DIRECTORY_BYTES / 1024 / 1024} MiB; this one has 3072.0 MiB or more`);
    expect(r.ms).toBeLessThan(1000);
    // Just over the limit too; at the limit's side a file is read as usual.
    const over = join(dir, 'over.csv');
    writeFileSync(over, '');
    const fo = openSync(over, 'r+');
    ftruncateSync(fo, MAX_DIRECTORY_BYTES + 1);
    closeSync(fo);
    expect((await importRefusal(over)).message).toMatch(/at most 64 MiB/);
    const ok = join(dir, 'ok.csv');
    writeFileSync(ok, 'bic,bank_name\nDEUTDEFF,Deutsche Bank\n');
    expect(await importDirectoryCsv(deps, ORG, { path: ok }, 'bic')).toMatchObject({ rows: 1, errors: 0, name: 'ok.csv' });
  });
});

describe('batch CSV input', () => {
  it('refuses a pipe, a device and a folder at once with a clear message, in the CLI plan and the console preview', () => {
    pipeWriter();
    const plan = refusal(() => planCsvInput(fifo));
    expect(plan.error).toBeInstanceOf(CsvInputProblem);
    expect((plan.error as CsvInputProblem).problem).toBe('NOT_A_FILE');
    expect((plan.error as Error).message).toBe('pipe.csv cannot be checked: it is a pipe, not a regular file. Give a CSV file.');
    expect(plan.ms).toBeLessThan(1000);
    pipeWriter();
    expect((refusal(() => previewCsvInput(fifo)).error as Error).message).toMatch(/it is a pipe, not a regular file/);
    expect((refusal(() => planCsvInput('/dev/zero')).error as Error).message).toBe('zero cannot be checked: it is a device, not a regular file. Give a CSV file.');
    expect((refusal(() => previewCsvInput(dir, 5)).error as Error).message).toMatch(/it is a folder, not a regular file/);
  });
});
