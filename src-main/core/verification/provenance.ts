// Who ran a verification and through which door (issue 15 §1), captured when the record is inserted: the actor's
// label is copied (a key renamed or a user removed later does not rewrite history).
import type { Door, Provenance } from '../../../src-shared/channels-history';
import type { SqlQueries } from '../../store/sql-port';
import type { Principal } from '../principal';

/** The door a principal came through: its own when given (the CLI says so), else by kind. */
export function doorOf(p: Principal): Door {
  return p.door ?? (p.kind === 'console' ? 'console' : 'api');
}

export async function provenanceOf(q: SqlQueries, p: Principal): Promise<Provenance> {
  const door = doorOf(p);
  if (p.kind === 'apiKey') {
    if (p.keyName !== undefined) return { actorType: 'api_key', actorId: p.keyId ?? null, actorLabel: p.keyName, door };
    const row = p.keyId ? await q.get<{ name: string }>('SELECT name FROM api_keys WHERE id = ?', [p.keyId]) : undefined;
    return { actorType: 'api_key', actorId: p.keyId ?? null, actorLabel: row?.name ?? null, door };
  }
  if (p.kind === 'user') {
    const row = p.userId ? await q.get<{ email: string }>('SELECT email FROM users WHERE id = ?', [p.userId]) : undefined;
    return { actorType: 'user', actorId: p.userId ?? null, actorLabel: row?.email ?? null, door };
  }
  // The console and the CLI act as the installation's owner: the organization's first owner.
  const owner = await q.get<{ id: string; email: string }>(
    `SELECT id, email FROM users WHERE organization_id = ? AND role = 'OWNER' ORDER BY created_at, id LIMIT 1`,
    [p.organizationId],
  );
  return { actorType: 'owner', actorId: owner?.id ?? null, actorLabel: owner?.email ?? null, door };
}

interface ProvenanceRow {
  actor_type: Provenance['actorType'] | null;
  actor_id: string | null;
  actor_label: string | null;
  door: Door | null;
}

export function provenanceFromRow(r: ProvenanceRow): Provenance | null {
  if (!r.actor_type || !r.door) return null;
  return { actorType: r.actor_type, actorId: r.actor_id, actorLabel: r.actor_label, door: r.door };
}
