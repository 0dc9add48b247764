// Console handlers for finding things: History search, one record in full (request, provenance), and the palette's
// id lookup. The console is the first organization's owner; ids of another organization are "not found".
import { AppError } from '../../src-shared/app-error';
import type { IdLookup, VerificationDetail } from '../../src-shared/channels-history';
import type { VerificationRecord } from '../../src-shared/schemas/verification';
import type { Environment } from '../../src-shared/schemas/common';
import { provenanceFromRow } from '../core/verification/provenance';
import { searchVerifications } from '../core/verification/search';
import type { ConsoleContext, Handlers } from './handlers';
import { owner } from './handlers';

export function historyHandlers(ctx: ConsoleContext): Pick<Handlers, 'history:search' | 'history:record' | 'lookup:id'> {
  const { rt } = ctx;
  const sql = rt.deps.sql;
  return {
    'history:search': async ({ environment, ...input }) => {
      const p = await owner(ctx, environment);
      return searchVerifications(sql, p.organizationId, environment, input, rt.deps.longReads);
    },
    'history:record': async ({ environment, id }): Promise<VerificationDetail> => {
      const p = await owner(ctx, environment);
      const row = await sql.get<{ result: string; request: string; actor_type: null; actor_id: string | null; actor_label: string | null; door: null }>(
        'SELECT result, request, actor_type, actor_id, actor_label, door FROM verifications WHERE id = ? AND organization_id = ? AND environment = ?',
        [id, p.organizationId, environment],
      );
      if (!row) throw new AppError('NOT_FOUND', { message: `No verification ${id} in ${environment}.` });
      return { record: JSON.parse(row.result) as VerificationRecord, request: JSON.parse(row.request) as unknown, provenance: provenanceFromRow(row) };
    },
    'lookup:id': async ({ id }): Promise<IdLookup> => {
      const org = (await owner(ctx)).organizationId;
      const found = await lookup(id, org);
      if (!found) throw new AppError('NOT_FOUND', { message: `Nothing with the id ${id} in this organization.` });
      return found;
    },
  };

  async function lookup(id: string, org: string): Promise<IdLookup | null> {
    const prefix = id.slice(0, id.indexOf('_'));
    if (prefix === 'ver') {
      const r = await sql.get<{ environment: Environment }>('SELECT environment FROM verifications WHERE id = ? AND organization_id = ?', [id, org]);
      return r ? { kind: 'verification', id, environment: r.environment } : null;
    }
    if (prefix === 'del') {
      const r = await sql.get<{ environment: Environment; webhook_id: string }>('SELECT environment, webhook_id FROM webhook_deliveries WHERE id = ? AND organization_id = ?', [id, org]);
      return r ? { kind: 'delivery', id, environment: r.environment, webhookId: r.webhook_id } : null;
    }
    if (prefix === 'whk' || prefix === 'wh') {
      const r = await sql.get<{ environment: Environment }>('SELECT environment FROM webhooks WHERE id = ? AND organization_id = ? AND deleted_at IS NULL', [id, org]);
      return r ? { kind: 'webhook', id, environment: r.environment } : null;
    }
    if (prefix === 'key') {
      const r = await sql.get<{ environment: Environment }>('SELECT environment FROM api_keys WHERE id = ? AND organization_id = ?', [id, org]);
      return r ? { kind: 'key', id, environment: r.environment } : null;
    }
    return null;
  }
}
