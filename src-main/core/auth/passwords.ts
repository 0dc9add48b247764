// Password hashing with scrypt (OWASP: N=2^17, r=8, p=1). The parameters are stored with each hash, so the
// cost can be raised later without breaking existing users.
//
// Hashing runs on a small pool of threads of its own, at low priority on Linux, and never on libuv's shared pool:
// a failed login costs ~0.1–0.3 s of CPU and 128 MiB by design, and on the shared pool a handful of them took
// every thread that file reads, DNS lookups and WebCrypto need, so any other request could wait seconds behind
// them — a denial of service that needs no password (issue 16). Logins queue for the pool; nothing else does.
import { availableParallelism } from 'node:os';
import { randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const KEYLEN = 32;

// Plain CommonJS evaluated in each thread: nothing to bundle, so it runs from tsx, the build and Electron alike.
// On Linux setpriority() for pid 0 applies to the calling thread only (elsewhere it would renice the process).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
if (process.platform === 'linux') { try { require('node:os').setPriority(0, 10); } catch {} }
parentPort.on('message', (m) => {
  try {
    const key = scryptSync(m.password, Buffer.from(m.salt), m.keylen, m.opts);
    parentPort.postMessage({ id: m.id, key: new Uint8Array(key) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;

interface Job {
  id: number;
  password: string;
  salt: Buffer;
  opts: ScryptOptions;
  resolve: (key: Buffer) => void;
  reject: (e: Error) => void;
}

/** A fixed number of hashing threads and a FIFO of hashes waiting for one. */
class HashPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly waiting: Job[] = [];
  private created = 0;
  private nextId = 1;

  constructor(readonly size: number) {}

  hash(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, password, salt, opts, resolve, reject });
      this.pump();
    });
  }

  /** Hashes in flight and waiting (for tests and the bench). */
  get load(): { running: number; waiting: number } {
    return { running: this.busy.size, waiting: this.waiting.length };
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      const worker = this.idle.pop() ?? (this.created < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const job = this.waiting.shift()!;
      this.busy.set(worker, job);
      worker.ref();
      worker.postMessage({ id: job.id, password: job.password, salt: job.salt, keylen: KEYLEN, opts: job.opts });
    }
  }

  private spawn(): Worker {
    this.created++;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (m: { id: number; key?: Uint8Array; error?: string }) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if (job) {
        if (m.key) job.resolve(Buffer.from(m.key.buffer, m.key.byteOffset, m.key.byteLength));
        else job.reject(new Error(m.error ?? 'scrypt failed'));
      }
      this.pump();
    });
    worker.on('error', (err) => {
      // A thread that died takes its job with it; the pool replaces it on the next hash.
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      this.created--;
      job?.reject(err instanceof Error ? err : new Error(String(err)));
      this.pump();
    });
    return worker;
  }
}

/**
 * Threads for hashing: one less than the cores (at least one, at most four), so that hashing alone can never
 * occupy every core the event loop needs. Queued logins wait for each other, not other requests.
 */
export const PASSWORD_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));
const pool = new HashPool(PASSWORD_THREADS);

/** Hashes waiting and running on the password pool. */
export function passwordPoolLoad(): { running: number; waiting: number } {
  return pool.load;
}

function scryptOnPool(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return pool.hash(password, salt, opts);
}

export async function hashPassword(password: string, N: number): Promise<string> {
  const salt = randomBytes(16);
  const r = 8;
  const p = 1;
  const key = await scryptOnPool(password, salt, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const N = Number(parts[1]);
  const r = Number(parts[2]);
  const p = Number(parts[3]);
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await scryptOnPool(password, salt, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummyHash: Promise<string> | undefined;
/** A hash to compare against when the email is unknown, so both paths cost the same time. */
export function dummyPasswordHash(N: number): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'), N);
  return dummyHash;
}
