// The verification repository: records are stored whole as JSON (the public shape), with the columns the
// list filters need beside them.
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import type { VerificationListQuery } from '../../../src-shared/schemas/verification';
import type { Db } from '../../store/database';
import type { VerificationKind } from './types';

export interface StoredVerification {
  record: VerificationRecord;
  kind: VerificationKind;
  organizationId: string;
  request: unknown;
}

export function insertVerification(db: Db, v: StoredVerification): void {
  const r = v.record;
  db.prepare(
    `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode,
       request, result, error_code, charge_amount, charge_currency, charge_status, created_at, completed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    r.id, v.organizationId, r.environment, v.kind, r.verificationType, r.country, r.identifier, r.status, r.mode,
    JSON.stringify(v.request), JSON.stringify(r), r.error?.code ?? null, r.charge.amount, r.charge.currency,
    r.charge.status, r.createdAt, r.completedAt,
  );
}

export function updateVerification(db: Db, r: VerificationRecord): void {
  db.prepare(
    `UPDATE verifications SET status = ?, result = ?, error_code = ?, charge_amount = ?, charge_currency = ?, charge_status = ?,
       completed_at = ? WHERE id = ?`,
  ).run(r.status, JSON.stringify(r), r.error?.code ?? null, r.charge.amount, r.charge.currency, r.charge.status, r.completedAt, r.id);
}

export function getVerification(db: Db, organizationId: string, environment: string, id: string): VerificationRecord | null {
  const row = db
    .prepare('SELECT result FROM verifications WHERE id = ? AND organization_id = ? AND environment = ?')
    .get(id, organizationId, environment) as { result: string } | undefined;
  return row ? (JSON.parse(row.result) as VerificationRecord) : null;
}

export function getStored(db: Db, id: string): (StoredVerification & { environment: string }) | null {
  const row = db.prepare('SELECT organization_id, environment, kind, request, result FROM verifications WHERE id = ?').get(id) as
    | { organization_id: string; environment: string; kind: VerificationKind; request: string; result: string }
    | undefined;
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    environment: row.environment,
    kind: row.kind,
    request: JSON.parse(row.request) as unknown,
    record: JSON.parse(row.result) as VerificationRecord,
  };
}

const KIND_FILTERS = new Set(['account', 'phone', 'identity', 'face', 'address']);

export function listVerifications(
  db: Db,
  organizationId: string,
  environment: string,
  q: VerificationListQuery,
): { data: VerificationRecord[]; total: number } {
  const where = ['organization_id = ?', 'environment = ?'];
  const args: (string | number)[] = [organizationId, environment];
  if (q.type) {
    if (KIND_FILTERS.has(q.type)) {
      where.push('kind = ?');
    } else {
      where.push('verification_type = ?');
    }
    args.push(q.type);
  }
  if (q.status) {
    where.push('status = ?');
    args.push(q.status);
  }
  if (q.country) {
    where.push('country = ?');
    args.push(q.country);
  }
  if (q.from) {
    where.push('created_at >= ?');
    args.push(new Date(q.from).toISOString());
  }
  if (q.to) {
    // A bare date as `to` includes that whole day.
    const end = /^\d{4}-\d{2}-\d{2}$/.test(q.to) ? Date.parse(q.to) + 86_400_000 : Date.parse(q.to) + 1;
    where.push('created_at < ?');
    args.push(new Date(end).toISOString());
  }
  const w = where.join(' AND ');
  const rows = db
    .prepare(`SELECT result FROM verifications WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .all(...args, q.limit, q.offset) as { result: string }[];
  const { n } = db.prepare(`SELECT count(*) AS n FROM verifications WHERE ${w}`).get(...args) as { n: number };
  return { data: rows.map((r) => JSON.parse(r.result) as VerificationRecord), total: n };
}
