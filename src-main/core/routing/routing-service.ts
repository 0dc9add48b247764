// Answers the four routing checks for a principal (decisions §5): picks the sandbox or the imported live directory,
// records each answer with an `rte_` id, and bills live correspondent look-ups. Shared by the HTTP and console doors.
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
import { chargeVerification, getWallet } from '../billing/billing';
import { runIdempotentRequest, type IdempotentResponse } from '../idempotency/idempotency';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { evaluateBic, evaluateCorrespondents, evaluateItem, evaluateRoutingNumber, type RoutingContext } from './checks';
import { liveDirectory, type LivePart } from './directory-store';
import { sandboxDirectory } from './sandbox-directory';

export const CORRESPONDENTS_SERVICE = serviceKey.correspondents;

const SANDBOX_REF: DirectoryRef = { name: 'sandbox', importedAt: null };

function contextFor(deps: CoreDeps, p: Principal, part: LivePart): { ctx: RoutingContext; directory: DirectoryRef | null } {
  if (p.environment === 'sandbox') return { ctx: { directory: sandboxDirectory(), sandbox: true }, directory: SANDBOX_REF };
  const dir = liveDirectory(deps, p.organizationId, part);
  return { ctx: { directory: dir, sandbox: false }, directory: dir ? { name: dir.name, importedAt: dir.importedAt } : null };
}

function record(deps: CoreDeps, p: Principal, kind: 'bic' | 'routing' | 'correspondents' | 'batch', request: unknown, result: unknown, id: string, createdAt: string): void {
  deps.db
    .prepare('INSERT INTO routing_checks (id, organization_id, environment, kind, request, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(id, p.organizationId, p.environment, kind, JSON.stringify(request), JSON.stringify(result), createdAt);
}

function meta(deps: CoreDeps, p: Principal, directory: DirectoryRef | null) {
  return { id: newId('rte'), environment: p.environment, directory, createdAt: iso(deps.clock.now()) };
}

export function answerBic(deps: CoreDeps, p: Principal, body: { bic: string }): BicAnswer {
  const { ctx, directory } = contextFor(deps, p, 'bic');
  const m = meta(deps, p, directory);
  const answer: BicAnswer = { ...evaluateBic(body.bic, ctx).result, ...m };
  record(deps, p, 'bic', body, answer, m.id, m.createdAt);
  return answer;
}

export function answerRoutingNumber(deps: CoreDeps, p: Principal, body: { routingNumber: string }): RoutingNumberAnswer {
  const { ctx, directory } = contextFor(deps, p, 'aba');
  const m = meta(deps, p, directory);
  const answer: RoutingNumberAnswer = { ...evaluateRoutingNumber(body.routingNumber, ctx).result, ...m };
  record(deps, p, 'routing', body, answer, m.id, m.createdAt);
  return answer;
}

const STRUCTURAL = new Set(['BIC_MALFORMED', 'CURRENCY_MALFORMED']);

/**
 * Billed in live (service `correspondents`, decisions §9) unless the input is structurally invalid (format errors
 * are never charged, decisions §2). The billing gates and the debit run in the transaction that records the answer.
 */
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
    const { ctx, directory } = contextFor(deps, p, 'correspondents');
    const { result, codes } = evaluateCorrespondents(body.bic, body.currency, ctx);
    const m = meta(deps, p, directory);
    const billable = p.environment === 'live' && !codes.some((c) => STRUCTURAL.has(c));
    const answer: CorrespondentsAnswer = { ...result, ...m, charge: { amount: 0, currency: getWallet(deps, p.organizationId).currency, status: 'not_charged' } };
    return {
      statusCode: 200,
      body: answer,
      // Runs inside the commit, before the response is serialised and stored: the charge fills in `answer.charge`.
      persist: () => {
        if (billable) {
          answer.charge = chargeVerification(deps.db, { organizationId: p.organizationId, service: CORRESPONDENTS_SERVICE, verificationId: m.id, nowMs: deps.clock.now() });
        }
        record(deps, p, 'correspondents', body, answer, m.id, m.createdAt);
      },
    };
  });
}

const PART_OF: Record<BatchItem['type'], LivePart> = { bic: 'bic', routing: 'aba', route: 'correspondents' };

/** 1..100 items (the door answers BATCH_TOO_LARGE first); each item answers from the directory of its kind. */
export function answerBatch(deps: CoreDeps, p: Principal, body: { items: BatchItem[] }): BatchAnswer {
  const contexts = new Map<LivePart, ReturnType<typeof contextFor>>();
  const ctxOf = (part: LivePart) => {
    let c = contexts.get(part);
    if (!c) {
      c = contextFor(deps, p, part);
      contexts.set(part, c);
    }
    return c;
  };
  const results = body.items.map((item, index) => ({ index, type: item.type, ...evaluateItem(item, ctxOf(PART_OF[item.type]).ctx).result }) as BatchResultItem);
  const valid = results.filter((r) => r.valid).length;
  // A batch may span kinds; it names the directory of its first item's kind, the one a single-kind batch uses.
  const first = body.items[0];
  const m = meta(deps, p, first ? ctxOf(PART_OF[first.type]).directory : null);
  const answer: BatchAnswer = { ...m, status: 'success', results, summary: { total: results.length, valid, invalid: results.length - valid } };
  record(deps, p, 'batch', body, answer, m.id, m.createdAt);
  return answer;
}
