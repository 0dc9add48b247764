// The verification use cases every door calls: submit (sync or async), get one, list.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import { runIdempotentRequest, type IdempotentResponse } from '../idempotency/idempotency';
import type { VerificationListQuery, VerificationRecord } from '../../../src-shared/schemas/verification';
import type { Principal } from '../principal';
import { submitVerification, type Submitted, type VerificationRuntime } from './engine';
import { getVerification, listVerifications } from './records';
import type { VerificationKind } from './types';
import type { SqlQueries } from '../../store/sql-port';

export function submit(
  rt: VerificationRuntime,
  p: Principal,
  kind: VerificationKind,
  request: { mode?: 'async' } & object,
  respondWithCharge?: (tx: SqlQueries, statusCode: number, body: unknown) => Promise<void>,
): Promise<Submitted> {
  return submitVerification(rt, p, kind, request, { async: request.mode === 'async', respondWithCharge });
}

/**
 * Submits a verification exactly once per idempotency key, as every door does: the API with the caller's
 * Idempotency-Key; the console and the CLI with a fresh key per submission.
 */
export function submitOnce(
  rt: VerificationRuntime,
  p: Principal,
  kind: VerificationKind,
  request: { mode?: 'async' } & object,
  idempotencyKey: string = `once-${randomUUID()}`,
): Promise<IdempotentResponse> {
  // The Submitted itself: persist() may fill its bodyJson (the stored record's text, sent as the answer).
  return runIdempotentRequest(rt.deps, p, idempotencyKey, { method: 'POST', path: `/verify/${kind}`, body: request }, (early) =>
    submit(rt, p, kind, request, early),
  );
}

export async function getOne(rt: VerificationRuntime, p: Principal, id: string): Promise<VerificationRecord> {
  const rec = await getVerification(rt.deps.sql, p.organizationId, p.environment, id);
  if (!rec) throw new AppError('NOT_FOUND', { message: 'No verification with this id exists.' });
  return rec;
}

export function list(rt: VerificationRuntime, p: Principal, q: VerificationListQuery): Promise<{ data: VerificationRecord[]; total: number }> {
  return listVerifications(rt.deps.sql, p.organizationId, p.environment, q, rt.deps.longReads);
}
