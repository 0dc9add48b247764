// Who is acting and through which door, for the audit trail: each door runs its work inside an AsyncLocalStorage
// context (HTTP per request, console per channel call, CLI per command), so core functions record their audit
// entry without every signature carrying the actor. Set before any write is queued: the group commit runs writes
// in its own tick, so an entry's actor is taken where the change is asked for, never inside the commit.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditEvent } from '../../../src-shared/schemas/audit';
import type { Principal } from '../principal';
import { carryIntoTransactions } from '../../store/tx-context';

/** The door and the actor of an entry, as the contract describes them (src-shared/schemas/audit.ts). */
export type AuditDoor = AuditEvent['door'];
export type AuditActor = AuditEvent['actor'];

export interface AuditContext {
  door: AuditDoor;
  /** The authenticated principal of an API request (set by the auth hook once known). */
  principal?: Principal;
  /** An actor that is not a principal: the console, the command line, the system. */
  actor?: AuditActor;
}

const storage = new AsyncLocalStorage<AuditContext>();
// A transaction's body sees the door and actor of the code that asked for it (store/tx-context.ts).
carryIntoTransactions(storage);

export function runWithAudit<T>(ctx: AuditContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentAuditContext(): AuditContext | undefined {
  return storage.getStore();
}
