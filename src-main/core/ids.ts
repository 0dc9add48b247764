// Opaque ids with a type prefix (decisions §1): ver_, whk_, del_, evt_, key_, org_, usr_, rte_, bat_, whf_ (webhook failure), rcv_ (recovery).
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'ver' | 'whk' | 'del' | 'evt' | 'key' | 'org' | 'usr' | 'rte' | 'bat' | 'ses' | 'job' | 'led' | 'use' | 'aud' | 'whf' | 'rcv';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
