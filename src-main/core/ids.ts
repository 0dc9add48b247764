// Opaque ids with a type prefix (decisions §1): ver_, whk_, del_, evt_, key_, org_, usr_, rte_, bat_, whf_ (webhook failure), rcv_ (recovery).
// 24 hex characters after the prefix: the creation time in milliseconds (12) then 48 random bits (12), so ids
// made one after another sort together. A primary-key insert then lands on the index's last page instead of a
// random one: fewer pages dirtied per commit (the WAL frames written), and no cache miss on a large store.
// A session id, which only a signed token carries, stays 96 random bits.
import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'ver' | 'whk' | 'del' | 'evt' | 'key' | 'org' | 'usr' | 'rte' | 'bat' | 'ses' | 'job' | 'led' | 'use' | 'aud' | 'whf' | 'rcv';

// The CSPRNG is read 4 KiB at a time, not once per id (one read cost more than the rest of newId: 3 % of a sync
// POST's CPU). Every id takes bytes no other id took; the pool is refilled when it runs out.
const pool = Buffer.alloc(4092);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

let lastMs = 0;

export function newId(prefix: IdPrefix): string {
  if (prefix === 'ses') return `${prefix}_${randomHex(12)}`;
  // Never backwards within a process, should the wall clock step back.
  const ms = Math.max(Date.now(), lastMs);
  lastMs = ms;
  return `${prefix}_${ms.toString(16).padStart(12, '0')}${randomHex(6)}`;
}
