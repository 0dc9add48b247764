// Opaque ids with a type prefix (decisions §1): ver_, whk_, del_, evt_, key_, org_, usr_, rte_, bat_, whf_ (webhook failure), rcv_ (recovery).
// 24 hex characters after the prefix: the creation time in milliseconds (12) then 48 random bits (12), so ids
// made one after another sort together. A primary-key insert then lands on the index's last page instead of a
// random one: fewer pages dirtied per commit (the WAL frames written), and no cache miss on a large store.
// Within one millisecond a process's ids still sort in the order it made them (the random part of the next id is
// the last one's plus 1 to 65,536): on PostgreSQL, which has no rowid, the id is the tie-break that keeps rows made
// in one millisecond in the order they were made (store/pg/dialect.ts, insertionOrder).
// A session id, which only a signed token carries, stays 96 random bits.
import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'ver' | 'whk' | 'del' | 'evt' | 'key' | 'org' | 'usr' | 'rte' | 'bat' | 'ses' | 'job' | 'led' | 'use' | 'aud' | 'whf' | 'rcv';

// The CSPRNG is read 4 KiB at a time, not once per id (one read cost more than the rest of newId: 3 % of a sync
// POST's CPU). Every id takes bytes no other id took; the pool is refilled when it runs out.
const pool = Buffer.alloc(4092);
let offset = pool.length;

/** `bytes` random bytes as hex, from the pool (a lease token: JobHandOff). */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

function randomUInt(bytes: number): number {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const n = pool.readUIntBE(offset, bytes);
  offset += bytes;
  return n;
}

const TAIL_MAX = 0xffff_ffff_ffff;
let lastMs = 0;
let lastTail = 0;

export function newId(prefix: IdPrefix): string {
  if (prefix === 'ses') return `${prefix}_${randomHex(12)}`;
  // Never backwards within a process, should the wall clock step back.
  let ms = Math.max(Date.now(), lastMs);
  let tail = ms === lastMs ? lastTail + 1 + randomUInt(2) : randomUInt(6);
  if (tail > TAIL_MAX) {
    // The millisecond's random range is used up (about once in 2^32 ids): the next one goes on.
    ms += 1;
    tail = randomUInt(6);
  }
  lastMs = ms;
  lastTail = tail;
  return `${prefix}_${ms.toString(16).padStart(12, '0')}${tail.toString(16).padStart(12, '0')}`;
}
