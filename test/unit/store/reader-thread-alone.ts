// Run by reader-thread.test.ts in a process of its own, where the reader thread is the only thing left alive (as in
// `vconsole serve` after its listener and loops have stopped): `node --import tsx reader-thread-alone.ts <mode>`.
// Prints each step it reaches; a process that exits early, or never exits, shows in what it printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src-main/store/database';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import { createSqlitePort } from '../../../src-main/store/sqlite-port';
import type { SqlValue } from '../../../src-main/store/sql-port';

const mode = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), 'vc-reader-alone-'));
const file = join(dir, 'store.sqlite');
const db = openDatabase(file);
const reader = new ReaderThread({ file, fallback: createSqlitePort(db), warn: (m) => console.log(`warning: ${m}`) });

async function main(): Promise<void> {
  if (mode === 'first-read') {
    // Nothing else keeps the loop alive while the thread starts and answers.
    console.log(`read ${JSON.stringify(await reader.get('SELECT 1 AS one'))}`);
  } else if (mode === 'bad-parameter') {
    await reader.get('SELECT 1 AS one');
    await reader.get('SELECT ? AS x', [undefined as unknown as SqlValue]).catch((e: unknown) => console.log(`refused ${String(e)}`));
    // No close: an idle thread must not keep the process alive.
    console.log('end');
    return;
  } else if (mode === 'close') {
    await reader.get('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT count(*) AS n FROM c');
    console.log('read');
  }
  await reader.close();
  console.log('closed');
  db.close();
  rmSync(dir, { recursive: true, force: true });
  console.log('end');
}
void main();
