// The audit trail (issue 15, docs/audit.md): `GET /client/audit-events` for owners and admins, the console's Audit
// page channels, and retention (a daily prune that keeps the chain verifiable from a checkpoint).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { AuditChannels } from '../src-shared/channels-audit';
import { AuditEventSchema, AuditQuerySchema } from '../src-shared/schemas/audit';
import { auditRetentionDays, setAuditRetention } from './core/audit/retention';
import { ErrorBodySchema, listEnvelope, toEnvelope, withPage } from '../src-shared/schemas/common';
import { owner, type ConsoleContext } from './console/handlers';
import { exportAuditParts, listAudit, pruneAudit, verifyOrganizationChain } from './core/audit/audit-log';
import { requireRole } from './core/principal';
import type { CoreRuntime } from './core/runtime';
import type { Feature } from './features';
import { principalOf } from './http/auth';
import type { HttpDoor } from './http/app';

function registerAuditRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/client/audit-events',
    {
      onRequest: door.auth('bearer'),
      schema: {
        summary: 'The audit trail (extension; owners and admins)',
        operationId: 'listAuditEvents',
        responseDescriptions: { 200: 'One page of audit events, newest first; each carries its hash and the previous entry\'s.' },
        description:
          'An extension to the interface (docs/api-decisions.md): the organization\'s append-only, hash-chained audit trail, newest first. Filters: actor (id or part of the label), action (or its start), target id, time range.',
        tags: ['audit'],
        security: [{ bearer: [] }],
        querystring: AuditQuerySchema,
        response: { 200: listEnvelope(AuditEventSchema), 401: ErrorBodySchema, 403: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema },
      },
    },
    async (req) => {
      const p = principalOf(req);
      requireRole(p, ['OWNER', 'ADMIN']);
      return toEnvelope(await listAudit(rt.deps.sql, p.organizationId, req.query, rt.deps.longReads), req.query);
    },
  );
}

/**
 * The console's audit export as a file: its name, media type and text in parts. The `audit:export` channel answers it
 * joined; the web console's download (GET /console/audit/export) sends the parts as they are.
 */
export async function auditExportFile(ctx: ConsoleContext, format: 'json' | 'csv'): Promise<{ filename: string; mediaType: string; parts: string[] }> {
  const { rt } = ctx;
  const organizationId = (await owner(ctx)).organizationId;
  // Page by page, its reads off the event loop where the store allows (as audit:verify reads the chain).
  const x = await exportAuditParts(rt.deps.sql, organizationId, rt.deps.clock.now(), format, rt.deps.longReads);
  const stamp = x.exportedAt.replace(/[:.]/g, '-');
  return { filename: `audit-${stamp}.${format}`, mediaType: format === 'json' ? 'application/json' : 'text/csv', parts: x.parts };
}

type AuditHandlers = {
  [K in keyof AuditChannels]: (input: z.output<AuditChannels[K]['input']>) => Promise<z.input<AuditChannels[K]['output']>>;
};

function auditConsoleHandlers(ctx: ConsoleContext): AuditHandlers {
  const { rt } = ctx;
  return {
    'audit:list': async (q) => {
      const page = withPage(q);
      return toEnvelope(await listAudit(rt.deps.sql, (await owner(ctx)).organizationId, page, rt.deps.longReads), page);
    },
    'audit:export': async ({ format }) => {
      const { parts, ...file } = await auditExportFile(ctx, format);
      return { ...file, content: parts.join('') };
    },
    'audit:verify': async () => {
      const organizationId = (await owner(ctx)).organizationId;
      // This organization's chain only, page by page, its reads off the event loop where the store allows.
      const r = await verifyOrganizationChain(rt.deps.sql, organizationId, rt.deps.longReads);
      const retentionDays = await auditRetentionDays(rt.deps.sql);
      return {
        ok: r.ok,
        entries: r.entries,
        head: r.head,
        firstBad: r.firstBad,
        retentionDays,
        checkpoint: r.start.seq > 0 ? r.start : null,
      };
    },
    'audit:setRetention': async ({ days }) => ({ days: await setAuditRetention(rt.deps, (await owner(ctx)).organizationId, days) }),
  };
}

/** Prunes once an hour after start (cheap when nothing is due); entries live `retention` days. */
function startRetentionLoop(rt: CoreRuntime): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    try {
      const removed = await pruneAudit(rt.deps, await auditRetentionDays(rt.deps.sql));
      const n = Object.values(removed).reduce((a, b) => a + b, 0);
      if (n > 0) rt.deps.log.info({ removed: n }, 'audit retention: old entries pruned, chain kept from a checkpoint');
    } catch (err) {
      rt.deps.log.error({ err: (err as Error).message }, 'audit retention failed; the next run tries again');
    }
  };
  // One pass at a time; stop() waits for the one in flight, so the store is not closed under it.
  const run = () => {
    running = running.then(pass);
  };
  const first = setTimeout(run, 60_000).unref();
  const every = setInterval(run, 3_600_000).unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}

export const auditFeature: Feature = {
  name: 'audit',
  httpRoutes: (door) => registerAuditRoutes(door),
  consoleHandlers: (ctx) => auditConsoleHandlers(ctx),
  start: (f) => startRetentionLoop(f.rt),
};
