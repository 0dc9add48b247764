// The verification repository: records are stored whole as JSON (the public shape), with the columns the
// list filters need beside them. The read paths of the API can return the stored JSON text as it is (…Json).
import { VERIFICATION_KINDS, type VerificationRecord } from '../../../src-shared/schemas/verification';
import type { VerificationListQuery } from '../../../src-shared/schemas/verification';
import type { SqlQueries } from '../../store/sql-port';
import { ListFilter, listPage } from '../../store/list-query';
import type { Provenance } from '../../../src-shared/channels-history';
import type { VerificationKind } from './types';
import type { LongReads } from '../../store/reader-thread';

export interface StoredVerification {
  record: VerificationRecord;
  kind: VerificationKind;
  organizationId: string;
  request: unknown;
  /** Who ran it and through which door (absent only for writers that predate it, e.g. test seeds). */
  provenance?: Provenance;
}

/** Stores a new record; returns the JSON text stored as its `result` (what an answer of the same record is). */
export async function insertVerification(q: SqlQueries, v: StoredVerification): Promise<string> {
  const r = v.record;
  const json = JSON.stringify(r);
  await q.run(
    `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode,
       request, result, error_code, charge_amount, charge_currency, charge_status, created_at, completed_at,
       actor_type, actor_id, actor_label, door)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id, v.organizationId, r.environment, v.kind, r.verificationType, r.country, r.identifier, r.status, r.mode,
      JSON.stringify(v.request), json, r.error?.code ?? null, r.charge.amount, r.charge.currency,
      r.charge.status, r.createdAt, r.completedAt,
      v.provenance?.actorType ?? null, v.provenance?.actorId ?? null, v.provenance?.actorLabel ?? null, v.provenance?.door ?? null,
    ],
  );
  return json;
}

const UPDATE_SET = `UPDATE verifications SET status = ?, result = ?, error_code = ?, charge_amount = ?, charge_currency = ?, charge_status = ?,
       completed_at = ? WHERE id = ?`;

/** `json`: the record's JSON when the caller already has it (JSON.stringify(r)). */
export async function updateVerification(q: SqlQueries, r: VerificationRecord, json: string = JSON.stringify(r)): Promise<void> {
  await q.run(UPDATE_SET, [r.status, json, r.error?.code ?? null, r.charge.amount, r.charge.currency, r.charge.status, r.completedAt, r.id]);
}

const UPDATE_IF_UNCHANGED = `${UPDATE_SET} AND result = ?`;

/**
 * updateVerification, only if the stored `result` text is still `before` (what the record was read from): false
 * when it changed meanwhile, and nothing was written. On PostgreSQL the update's row lock and the re-check of its
 * WHERE at the row's latest version make the read and the write one step, as a SELECT … FOR UPDATE would.
 */
export async function updateVerificationIf(q: SqlQueries, r: VerificationRecord, json: string, before: string): Promise<boolean> {
  const { changes } = await q.run(UPDATE_IF_UNCHANGED, [r.status, json, r.error?.code ?? null, r.charge.amount, r.charge.currency, r.charge.status, r.completedAt, r.id, before]);
  return changes === 1;
}

export async function getVerification(q: SqlQueries, organizationId: string, environment: string, id: string): Promise<VerificationRecord | null> {
  const json = await getVerificationJson(q, organizationId, environment, id);
  return json === null ? null : (JSON.parse(json) as VerificationRecord);
}

/** A stored record with its request, parsed, as getStored reads it. */
export type StoredWithText = StoredVerification & { environment: string; resultJson: string };

/** A stored record with its request, parsed; `resultJson` is the stored text the record was parsed from. */
export async function getStored(q: SqlQueries, id: string): Promise<StoredWithText | null> {
  const row = await q.get<{ organization_id: string; environment: string; kind: VerificationKind; request: string; result: string }>(
    'SELECT organization_id, environment, kind, request, result FROM verifications WHERE id = ?',
    [id],
  );
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    environment: row.environment,
    kind: row.kind,
    request: JSON.parse(row.request) as unknown,
    record: JSON.parse(row.result) as VerificationRecord,
    resultJson: row.result,
  };
}

const KIND_FILTERS = new Set<string>(VERIFICATION_KINDS);

/** The stored JSON text of one record in the caller's scope, or null (see listVerificationsJson on why it is safe). */
export async function getVerificationJson(q: SqlQueries, organizationId: string, environment: string, id: string): Promise<string | null> {
  const row = await q.get<{ result: string }>('SELECT result FROM verifications WHERE id = ? AND organization_id = ? AND environment = ?', [
    id,
    organizationId,
    environment,
  ]);
  return row ? row.result : null;
}

export async function listVerifications(
  sql: SqlQueries,
  organizationId: string,
  environment: string,
  q: VerificationListQuery,
  longReads?: LongReads,
): Promise<{ data: VerificationRecord[]; total: number }> {
  const { data, total } = await listVerificationsJson(sql, organizationId, environment, q, longReads);
  return { data: data.map((r) => JSON.parse(r) as VerificationRecord), total };
}

/**
 * One page as the stored JSON text of each record, unparsed. The `result` column is only ever written by
 * insertVerification/updateVerification, as JSON.stringify of a VerificationRecord built by our code, so the text
 * already is the public shape: parsing, validating and re-serialising 100 of them per page only cost time.
 */
export async function listVerificationsJson(
  sql: SqlQueries,
  organizationId: string,
  environment: string,
  q: VerificationListQuery,
  /** Where the total is counted when not cached: off the event loop (CoreDeps.longReads). */
  longReads?: LongReads,
): Promise<{ data: string[]; total: number }> {
  const filter = new ListFilter()
    .eq('organization_id', organizationId)
    .eq('environment', environment)
    // `type` is a kind (account, phone, …) or a verificationType value (decisions §3).
    .eq(q.type && KIND_FILTERS.has(q.type) ? 'kind' : 'verification_type', q.type)
    .eq('status', q.status)
    .eq('country', q.country)
    .createdBetween(q.from, q.to);
  const { rows, total: n } = await listPage<{ result: string }>(sql, {
    select: 'result',
    from: 'verifications',
    filter,
    orderBy: 'created_at DESC, id DESC',
    limit: q.limit,
    offset: q.offset,
    countWith: longReads,
    // The list's order is `verifications_list`'s, which carries no type, country or status: filtered on one of them,
    // the page is found by reading checks one by one until 20 match — all of them when few or none do (2.6 s from a
    // cold cache, 250 ms warm, on 500,000 checks; a status alone 78–151 ms, SQLite preferring the list's order to
    // `verifications_status`, which lacks the id), so it is read off the event loop (docs/performance.md).
    pageWith: q.type !== undefined || q.country !== undefined || q.status !== undefined ? longReads : undefined,
  });
  return { data: rows.map((r) => r.result), total: n };
}
