// Second baseline for benchmark 1 (docs/performance.md): the least a durable POST can do on this machine. A bare
// Fastify JSON-schema POST that stores each request before answering it, the way a careful minimal app would:
// one row per request (a random id, the request and a record of the answer's size) in a SQLite WAL store, the
// writes of one turn of the loop in one transaction, and the answer sent only after an fdatasync of the WAL
// (synchronous=NORMAL plus that sync is synchronous=FULL's guarantee). The sync runs on libuv's pool, off the
// loop, and commits wait while one is in flight, so every sync covers a whole batch. No auth, no idempotency,
// no validation beyond the schema, no search index: what is left is HTTP, one insert and the disk.
// Usage: node bench/durable-baseline-server.mjs <data-folder>. Prints its port on stdout.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { fdatasync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: durable-baseline-server.mjs <data-folder>');
mkdirSync(dir, { recursive: true });
const file = join(dir, 'durable-baseline.sqlite');
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS checks (id TEXT PRIMARY KEY, request TEXT NOT NULL, result TEXT NOT NULL, created_at TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO checks (id, request, result, created_at) VALUES (?, ?, ?, ?)');
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');
let walFd = -1;

const body = {
  type: 'object',
  required: ['country', 'accountNumber'],
  properties: { country: { type: 'string' }, accountNumber: { type: 'string' }, bankCode: { type: 'string' } },
};

/** Rows of this turn, and the answers waiting for the sync that covers their commit. */
let queued = [];
let waiting = [];
let syncing = false;
let scheduled = false;

function schedule() {
  if (scheduled || syncing) return;
  scheduled = true;
  setImmediate(flush);
}

function flush() {
  scheduled = false;
  if (queued.length === 0) return;
  const batch = queued;
  queued = [];
  begin.run();
  for (const w of batch) insert.run(w.id, w.request, w.result, w.at);
  commit.run();
  waiting.push(...batch);
  if (walFd < 0) walFd = openSync(`${file}-wal`, 'r+');
  syncing = true;
  const released = waiting;
  waiting = [];
  fdatasync(walFd, (err) => {
    syncing = false;
    for (const w of released) w.done(err);
    schedule();
  });
}

const app = Fastify({ logger: false });
app.post('/api/v1/verify/account', { schema: { body } }, (req) => {
  const now = new Date().toISOString();
  const record = {
    id: `ver_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    status: 'success',
    verified: true,
    verificationType: 'ACCOUNT_NUMBER',
    identifier: req.body.accountNumber,
    country: req.body.country,
    bankCode: req.body.bankCode,
    environment: 'sandbox',
    mode: 'sync',
    createdAt: now,
    completedAt: now,
    source: 'live',
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
    accountName: 'ADAEZE OKAFOR',
    bankName: 'Guaranty Trust Bank',
  };
  return new Promise((resolve, reject) => {
    queued.push({
      id: record.id,
      request: JSON.stringify(req.body),
      result: JSON.stringify(record),
      at: now,
      done: (err) => (err ? reject(err) : resolve(record)),
    });
    schedule();
  });
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`PORT ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
