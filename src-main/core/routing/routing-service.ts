// Answers the four routing checks for a principal (decisions §5): picks the sandbox or the imported live directory,
// records each answer with an `rte_` id (a batch: `bat_`), and bills live correspondent look-ups. Shared by the HTTP and console doors.
import type {
  BatchAnswer,
  BatchItem,
  BatchResultItem,
  BicAnswer,
  CorrespondentsAnswer,
  DirectoryRef,
  RoutingNumberAnswer,
} from '../../../src-shared/schemas/routing';
import { randomUUID } from 'node:crypto';
import { serviceKey } from '../../../src-shared/services';
import { chargeQueue, chargeVerification, getWallet } from '../billing/billing';
import { appendAudit } from '../audit/audit-log';
import { runIdempotentRequest, type IdempotentResponse } from '../idempotency/idempotency';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { evaluateBic, evaluateCorrespondents, evaluateItem, evaluateRoutingNumber, type RoutingContext } from './checks';
import { evaluateOverStore, liveDirectory, StoreDirectoryRows, type LivePart } from './directory-store';
import type { SqlQueries } from '../../store/sql-port';
import { sandboxDirectory } from './sandbox-directory';

export const CORRESPONDENTS_SERVICE = serviceKey.correspondents;

const SANDBOX_REF: DirectoryRef = { name: 'sandbox', importedAt: null };

/** The rows a live check looks up in the store (none for the sandbox, whose directory is in memory). */
function rowsFor(deps: CoreDeps, p: Principal): StoreDirectoryRows | null {
  return p.environment === 'sandbox' ? null : new StoreDirectoryRows(deps.sql, p.organizationId);
}

async function contextFor(
  deps: CoreDeps,
  p: Principal,
  part: LivePart,
  rows: StoreDirectoryRows | null,
): Promise<{ ctx: RoutingContext; directory: DirectoryRef | null }> {
  if (rows === null) return { ctx: { directory: sandboxDirectory(), sandbox: true }, directory: SANDBOX_REF };
  const dir = await liveDirectory(deps, p.organizationId, part, rows);
  return { ctx: { directory: dir, sandbox: false }, directory: dir ? { name: dir.name, importedAt: dir.importedAt } : null };
}

const RECORD = 'INSERT INTO routing_checks (id, organization_id, environment, kind, request, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)';

type CheckKind = 'bic' | 'routing' | 'correspondents' | 'batch';

/** Stores an answer, in the caller's transaction `tx`. */
async function record(tx: SqlQueries, p: Principal, kind: CheckKind, request: unknown, result: unknown, id: string, createdAt: string): Promise<void> {
  await tx.run(RECORD, [id, p.organizationId, p.environment, kind, JSON.stringify(request), JSON.stringify(result), createdAt]);
}

/** Stores an answer in a transaction of its own. */
function recordAlone(deps: CoreDeps, p: Principal, kind: CheckKind, request: unknown, result: unknown, id: string, createdAt: string): Promise<void> {
  return deps.sql.transaction((tx) => record(tx, p, kind, request, result, id, createdAt));
}

/** An answer's id is `rte_` for a single check and `bat_` for a batch (decisions §1). */
function meta(deps: CoreDeps, p: Principal, directory: DirectoryRef | null, prefix: 'rte' | 'bat' = 'rte') {
  return { id: newId(prefix), environment: p.environment, directory, createdAt: iso(deps.clock.now()) };
}

export async function answerBic(deps: CoreDeps, p: Principal, body: { bic: string }): Promise<BicAnswer> {
  const rows = rowsFor(deps, p);
  const { ctx, directory } = await contextFor(deps, p, 'bic', rows);
  const result = await evaluateOverStore(rows, () => evaluateBic(body.bic, ctx).result);
  const m = meta(deps, p, directory);
  const answer: BicAnswer = { ...result, ...m };
  await recordAlone(deps, p, 'bic', body, answer, m.id, m.createdAt);
  return answer;
}

export async function answerRoutingNumber(deps: CoreDeps, p: Principal, body: { routingNumber: string }): Promise<RoutingNumberAnswer> {
  const rows = rowsFor(deps, p);
  const { ctx, directory } = await contextFor(deps, p, 'aba', rows);
  const result = await evaluateOverStore(rows, () => evaluateRoutingNumber(body.routingNumber, ctx).result);
  const m = meta(deps, p, directory);
  const answer: RoutingNumberAnswer = { ...result, ...m };
  await recordAlone(deps, p, 'routing', body, answer, m.id, m.createdAt);
  return answer;
}

/**
 * Billed in live (service `correspondents`, decisions §9) unless the input is structurally invalid (format errors
 * are never charged, decisions §2) or nothing could be looked up (no routing directory imported: an
 * INCONCLUSIVE non-answer, never charged, interface §1.6). Only a look-up that ran is billed, found or not.
 * The billing gates and the debit run in the transaction that records the answer.
 */
const NOT_BILLED = new Set(['BIC_MALFORMED', 'CURRENCY_MALFORMED', 'NO_ROUTING_DIRECTORY']);

/**
 * Correspondents, exactly once per idempotency key (the API's Idempotency-Key; a fresh key for the console).
 * In live the charge, the routing record and the stored response commit in one transaction, so a retry after a
 * crash either replays the answer or charges for the first time — never twice. A billing gate that refuses
 * (402/403) throws inside that transaction, and nothing is stored.
 */
export function correspondentsOnce(
  deps: CoreDeps,
  p: Principal,
  body: { bic: string; currency?: string | undefined },
  idempotencyKey: string = `once-${randomUUID()}`,
): Promise<IdempotentResponse> {
  return runIdempotentRequest(deps, p, idempotencyKey, { method: 'POST', path: '/verifications/correspondents', body }, async () => {
    const rows = rowsFor(deps, p);
    const { ctx, directory } = await contextFor(deps, p, 'correspondents', rows);
    const { result, codes } = await evaluateOverStore(rows, () => evaluateCorrespondents(body.bic, body.currency, ctx));
    const m = meta(deps, p, directory);
    const billable = p.environment === 'live' && !codes.some((c) => NOT_BILLED.has(c));
    const answer: CorrespondentsAnswer = { ...result, ...m, charge: { amount: 0, currency: (await getWallet(deps, p.organizationId)).currency, status: 'not_charged' } };
    return {
      statusCode: 200,
      body: answer,
      // Runs inside the commit, before the response is serialised and stored: the charge fills in `answer.charge`.
      persist: async (tx) => {
        if (billable) {
          answer.charge = await chargeVerification(tx, { organizationId: p.organizationId, service: CORRESPONDENTS_SERVICE, verificationId: m.id, nowMs: deps.clock.now() });
          // Every live check is in the audit trail, in the transaction of its charge (docs/audit.md), as a verification's is.
          await appendAudit({ ...deps, sql: tx }, p.organizationId, {
            action: 'verification.live_check',
            target: { type: 'routingCheck', id: m.id },
            detail: { kind: 'correspondents', bic: answer.bic ?? body.bic, charge: { amount: answer.charge.amount, currency: answer.charge.currency } },
          });
        }
        await record(tx, p, 'correspondents', body, answer, m.id, m.createdAt);
      },
      // Queued behind the organization's other charges on PostgreSQL (billing.chargeQueue), as a verification's charge.
      ...(billable ? { persistOptions: { queue: chargeQueue(p.organizationId) } } : {}),
    };
  });
}

const PART_OF: Record<BatchItem['type'], LivePart> = { bic: 'bic', routing: 'aba', route: 'correspondents' };

/** 1..100 items (the door answers BATCH_TOO_LARGE first); each item answers from the directory of its kind. */
export async function answerBatch(deps: CoreDeps, p: Principal, body: { items: BatchItem[] }): Promise<BatchAnswer> {
  const rows = rowsFor(deps, p);
  // The directory of each kind the batch holds (the first item's first: a batch names the directory of its first item's kind).
  const contexts = new Map<LivePart, Awaited<ReturnType<typeof contextFor>>>();
  for (const item of body.items) {
    const part = PART_OF[item.type];
    if (!contexts.has(part)) contexts.set(part, await contextFor(deps, p, part, rows));
  }
  const ctxOf = (part: LivePart) => contexts.get(part)!;
  const results = await evaluateOverStore(rows, () =>
    body.items.map((item, index) => ({ index, type: item.type, ...evaluateItem(item, ctxOf(PART_OF[item.type]).ctx).result }) as BatchResultItem),
  );
  const valid = results.filter((r) => r.valid).length;
  // A batch may span kinds; it names the directory of its first item's kind, the one a single-kind batch uses.
  const first = body.items[0];
  const m = meta(deps, p, first ? ctxOf(PART_OF[first.type]).directory : null, 'bat');
  const answer: BatchAnswer = { ...m, status: 'success', results, summary: { total: results.length, valid, invalid: results.length - valid } };
  await recordAlone(deps, p, 'batch', body, answer, m.id, m.createdAt);
  return answer;
}
