// The store's speed caches must never change an answer: a cached prepared statement behaves like a fresh one,
// and a list's cached `total` is dropped by any write that could change it, from this connection or another.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { insertVerification, listVerifications, updateVerification } from '../../../src-main/core/verification/records';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { ListFilter, listPage } from '../../../src-main/store/list-query';

function record(id: string, status: VerificationRecord['status'], createdAt: string): VerificationRecord {
  return {
    id,
    status,
    verified: status === 'success',
    verificationType: 'ACCOUNT_NUMBER',
    identifier: '0123456789',
    country: 'NG',
    environment: 'sandbox',
    mode: 'sync',
    createdAt,
    completedAt: createdAt,
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
  } as VerificationRecord;
}

function seed(db: Db, n: number, from = 0): void {
  for (let i = from; i < from + n; i++) {
    const rec = record(`ver_${String(i).padStart(4, '0')}`, i % 2 ? 'failed' : 'success', new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString());
    insertVerification(db, { kind: 'account', organizationId: 'org_a', request: {}, record: rec });
  }
}

function open(file = ':memory:'): Db {
  const db = openDatabase(file);
  db.prepare("INSERT OR IGNORE INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00.000Z')").run();
  return db;
}

const q = (extra: Partial<{ status: 'success' | 'failed' }> = {}) => ({ limit: 5, offset: 0, ...extra }) as Parameters<typeof listVerifications>[3];

describe('prepared statement cache', () => {
  it('returns one statement per SQL text, and a fresh one while the cached one is iterating', () => {
    const db = open();
    seed(db, 3);
    const sql = 'SELECT id FROM verifications ORDER BY id';
    const a = db.prepare(sql);
    expect(db.prepare(sql)).toBe(a);
    const it = a.iterate();
    it.next();
    const b = db.prepare(sql);
    expect(b).not.toBe(a);
    expect(b.all()).toHaveLength(3);
    it.return?.();
    db.close();
  });

  it('resets result modes so a cached statement answers like a fresh one', () => {
    const db = open();
    seed(db, 2);
    const sql = 'SELECT id FROM verifications ORDER BY id';
    expect(db.prepare(sql).pluck().all()).toEqual(['ver_0000', 'ver_0001']);
    expect(db.prepare(sql).all()).toEqual([{ id: 'ver_0000' }, { id: 'ver_0001' }]);
    expect(db.prepare(sql).raw().all()).toEqual([['ver_0000'], ['ver_0001']]);
    expect(db.prepare(sql).get()).toEqual({ id: 'ver_0000' });
    db.close();
  });
});

describe('list totals', () => {
  it('follows inserts, status updates and deletes on the same connection', () => {
    const db = open();
    seed(db, 7);
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(7);
    expect(listVerifications(db, 'org_a', 'sandbox', q({ status: 'success' })).total).toBe(4);
    seed(db, 1, 100);
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(8);
    updateVerification(db, record('ver_0001', 'success', new Date(Date.UTC(2026, 0, 1, 0, 0, 1)).toISOString()));
    expect(listVerifications(db, 'org_a', 'sandbox', q({ status: 'success' })).total).toBe(6);
    db.prepare("DELETE FROM verifications WHERE id = 'ver_0000'").run();
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(7);
    expect(listVerifications(db, 'org_a', 'sandbox', q({ status: 'success' })).total).toBe(5);
    db.close();
  });

  it('sees a commit made by another connection (another process, e.g. the CLI)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vc-cache-')), 'store.sqlite');
    const db = open(file);
    seed(db, 3);
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(3);
    const other = new Database(file);
    seed(other, 2, 50);
    other.close();
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(5);
    db.close();
  });

  it('is not fooled by rows counted inside a transaction that rolled back', () => {
    const db = open();
    seed(db, 2);
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(2);
    expect(() =>
      db.transaction(() => {
        seed(db, 1, 10);
        expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(3);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    seed(db, 1, 20);
    const f = new ListFilter().eq('organization_id', 'org_a').eq('status', 'failed');
    expect(listPage(db, { select: 'id', from: 'verifications', filter: f, orderBy: 'id', limit: 10, offset: 0 }).total).toBe(1);
    expect(listVerifications(db, 'org_a', 'sandbox', q()).total).toBe(3);
    db.close();
  });

  it('counts tables without a write counter every time', () => {
    const db = open();
    const f = () => listPage(db, { select: 'id', from: 'organizations', filter: new ListFilter(), orderBy: 'id', limit: 10, offset: 0 }).total;
    expect(f()).toBe(1);
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_b', 'B', '2026-01-01T00:00:00.000Z')").run();
    expect(f()).toBe(2);
    db.close();
  });
});
