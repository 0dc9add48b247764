// The store under the machine's faults (docs/reliability.md, "Storage faults"): which SQLite errors mean the data
// folder cannot take writes now (disk full, read-only, I/O failure), and the per-store health that the HTTP door,
// the console and `GET /health` report. A fault is answered 503 STORAGE_UNAVAILABLE and logged at most once a
// minute with a count — never a stack trace per request, which on a full disk would only make it fuller. The first
// write that succeeds afterwards clears it: the service recovers by itself.
import { statfsSync } from 'node:fs';
import { AppError } from '../../src-shared/app-error';
import { formatBytes } from '../../src-shared/format-bytes';
import type { Db } from './database';

export type StorageFaultReason = 'full' | 'read-only' | 'io';

const REASON_TEXT: Record<StorageFaultReason, string> = {
  full: 'the disk holding the data folder is full',
  'read-only': 'the data folder or its database file is read-only',
  io: 'the disk reported an input/output error',
};

/** The storage fault an error stands for, or null when it is something else. */
export function storageFault(err: unknown): StorageFaultReason | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read-only';
  if (code.startsWith('SQLITE_IOERR')) return /ENOSPC|full/i.test(String((err as Error).message)) ? 'full' : 'io';
  return null;
}

export function storageFaultText(reason: StorageFaultReason): string {
  return REASON_TEXT[reason];
}

export interface StorageStatus {
  status: 'ok' | 'degraded';
  reason: StorageFaultReason | null;
  /** A sentence for a person, naming the folder; null while ok. */
  message: string | null;
  dataDir: string;
  /** Free bytes on the data folder's file system, when the platform says. */
  freeBytes: number | null;
  /** When the current fault began (ISO), and how many writes it refused since. */
  since: string | null;
  refused: number;
}

export interface StorageLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const LOG_EVERY_MS = 60_000;
const COUNTED = Symbol('storage fault counted');

export class StorageHealth {
  private reason: StorageFaultReason | null = null;
  private sinceMs = 0;
  private refused = 0;
  private unlogged = 0;
  private lastLogMs = -Infinity;

  constructor(
    private readonly dataDir: string,
    private readonly log: StorageLog,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a refused write; logs the first one and then at most one line a minute, with the count. */
  fault(reason: StorageFaultReason, err: unknown): void {
    // One refused write is counted once, whether the commit or the door that answers it sees it first.
    if (typeof err === 'object' && err !== null) {
      if ((err as Record<symbol, unknown>)[COUNTED]) return;
      (err as Record<symbol, unknown>)[COUNTED] = true;
    }
    const t = this.now();
    if (this.reason === null) {
      this.reason = reason;
      this.sinceMs = t;
      this.refused = 0;
    }
    this.reason = reason;
    this.refused += 1;
    this.unlogged += 1;
    if (t - this.lastLogMs >= LOG_EVERY_MS) {
      this.log.error(
        { reason, dataDir: this.dataDir, refusedSinceLastLog: this.unlogged, refusedInFault: this.refused, sqlite: (err as { code?: string }).code, detail: String((err as Error).message ?? err).slice(0, 200) },
        `storage unavailable: ${REASON_TEXT[reason]} (${this.dataDir}); ${this.unlogged} write(s) refused since the last report`,
      );
      this.lastLogMs = t;
      this.unlogged = 0;
    }
  }

  /** A write committed: the fault, if any, is over. */
  ok(): void {
    if (this.reason === null) return;
    this.log.warn({ dataDir: this.dataDir, refused: this.refused, lastedMs: this.now() - this.sinceMs }, 'storage available again: writes resumed');
    this.reason = null;
    this.refused = 0;
    this.unlogged = 0;
    this.lastLogMs = -Infinity;
  }

  get degraded(): boolean {
    return this.reason !== null;
  }

  status(): StorageStatus {
    const freeBytes = freeSpace(this.dataDir);
    const reason = this.reason;
    return {
      status: reason ? 'degraded' : 'ok',
      reason,
      message: reason ? storageUnavailableMessage(reason, this.dataDir, freeBytes) : null,
      dataDir: this.dataDir,
      freeBytes,
      since: reason ? new Date(this.sinceMs).toISOString() : null,
      refused: this.refused,
    };
  }
}

/** Free bytes on the file system holding `dir`, or null where the platform does not say. */
export function freeSpace(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

export function storageUnavailableMessage(reason: StorageFaultReason, dataDir: string, freeBytes: number | null): string {
  const free = freeBytes === null ? '' : ` (${formatBytes(freeBytes)} free)`;
  const fix =
    reason === 'full'
      ? 'Free some space on that disk'
      : reason === 'read-only'
        ? 'Make the folder and its files writable for the user running the service'
        : 'Check the disk';
  return `The service cannot write to its data folder ${dataDir}${free}: ${REASON_TEXT[reason]}. Nothing was recorded. ${fix}; the service resumes by itself, so retry then.`;
}

const healths = new WeakMap<Db, StorageHealth>();

export function attachStorageHealth(db: Db, health: StorageHealth): void {
  healths.set(db, health);
}

/** The health of a store opened by createCore (null for stores opened otherwise, e.g. in unit tests). */
export function storageHealthOf(db: Db | undefined): StorageHealth | null {
  return (db && healths.get(db)) ?? null;
}

/** Seconds a client is told to wait before retrying a write refused for a storage fault. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/**
 * The AppError a door answers for an error that is a storage fault (recording it in the store's health), or null
 * for any other error.
 */
export function storageAppError(db: Db | undefined, err: unknown): AppError | null {
  const reason = storageFault(err);
  if (!reason) return null;
  const health = storageHealthOf(db);
  health?.fault(reason, err);
  const status = health?.status();
  return new AppError('STORAGE_UNAVAILABLE', {
    message: storageUnavailableMessage(reason, status?.dataDir ?? 'the data folder', status?.freeBytes ?? null),
    retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
  });
}
