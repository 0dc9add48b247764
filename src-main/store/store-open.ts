// Opening the store at start, with an answer a person can act on when it cannot be opened (docs/reliability.md,
// "Storage faults"): a damaged file or an unwritable folder exits naming the file, the problem and the next step.
// Nothing here modifies or replaces the file.
import { join } from 'node:path';
import { StoreError, type Db } from './database';

export const STORE_FILE = 'verification-console.sqlite';

export function storeFile(dataDir: string): string {
  return join(dataDir, STORE_FILE);
}

/** Why a store could not be opened, as a StoreError with the next step; other errors pass through unchanged. */
export function explainOpenError(file: string, dataDir: string, err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const detail = String((err as Error | null)?.message ?? err);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))) {
    return new StoreError(
      [
        `The store ${file} is damaged (${detail}).`,
        'It was not modified. To go on, restore a backup: `vconsole db backups --data-dir ' + dataDir + '` lists them and',
        '`vconsole db restore FILE --data-dir ' + dataDir + '` restores one (the damaged file is kept aside). To keep the damaged file',
        'for inspection and start empty instead, move it (with its -wal and -shm files) out of the folder.',
      ].join('\n'),
    );
  }
  if (
    code === 'SQLITE_READONLY' ||
    (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) ||
    code === 'SQLITE_CANTOPEN' ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS'
  ) {
    return new StoreError(
      [
        `The store ${file} cannot be written (${detail}).`,
        `The user running the service needs write access to the folder ${dataDir} and to the files in it`,
        '(on Linux and macOS: `ls -l` shows the owner; `chmod u+w` on the folder and the files, or run as their owner).',
        'Or choose another data folder with --data-dir. The file was not modified.',
      ].join('\n'),
    );
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new StoreError(`The store ${file} cannot be opened: the disk holding ${dataDir} is full (${detail}). Free some space, then start again. The file was not modified.`);
  }
  return err;
}

/** Opens the data folder's store through `open`, turning open failures into StoreErrors with the next step. */
export function openStoreForService(dataDir: string, open: (file: string) => Db): Db {
  const file = storeFile(dataDir);
  try {
    return open(file);
  } catch (err) {
    throw explainOpenError(file, dataDir, err);
  }
}
