// Webhook management and delivery history (interface §4.3, decisions §6–§7): a Bearer token of any role or an
// API key; the organization and environment come from the credential.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBodySchema, listEnvelope, toEnvelope } from '../../../src-shared/schemas/common';
import {
  CreateWebhookRequestSchema,
  DeliveryDetailSchema,
  DeliveryListQuerySchema,
  DeliverySchema,
  RecoveryPeriodSchema,
  RecoveryPreviewSchema,
  RecoveryRequestSchema,
  RecoveryResultSchema,
  UpdateWebhookRequestSchema,
  WebhookListQuerySchema,
  WebhookSchema,
  WebhookUpdateResultSchema,
  WebhookWithSecretSchema,
} from '../../../src-shared/schemas/webhooks';
import { getDelivery, listDeliveries } from '../../core/webhooks/deliveries';
import { previewRecovery, recoverWebhook } from '../../core/webhooks/recovery';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from '../../core/webhooks/webhooks-service';
import { requireRole } from '../../core/principal';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

const Id = z.object({ id: z.string().max(100) });
const DeliveryParams = z.object({ id: z.string().max(100), deliveryId: z.string().max(100) });
const errors = { 401: ErrorBodySchema, 404: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
const security: { [name: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];
const tags = ['webhooks'];

// Recovery is an extension beyond the interface (docs/api-decisions.md "Webhook recovery"): OWNER and ADMIN only,
// with a Bearer token; an API key or a DEVELOPER gets 403.
const RECOVERY_NOTE =
  'Extension beyond the interface (docs/api-decisions.md, "Webhook recovery"). Redelivers every event of the period ' +
  '(default: from the first event the last failure left undelivered, until now) that the endpoint has not acknowledged, ' +
  'each as a new delivery (origin "recovery", linked to its original eventId), signed fresh, on the normal retry schedule. ' +
  'A failed webhook is re-enabled first; a paused one is refused (422). OWNER or ADMIN only (403 otherwise).';
const recoveryErrors = { ...errors, 403: ErrorBodySchema };

export function registerWebhookRoutes(door: HttpDoor): void {
  const { rt } = door;
  const r = door.app.withTypeProvider<ZodTypeProvider>();
  const auth = door.auth('either');

  r.post(
    '/client/webhooks',
    {
      onRequest: auth,
      schema: {
        summary: 'Register a webhook endpoint (the secret is shown only here)',
        operationId: 'createWebhook',
        description: 'Registers an https:// endpoint for the events given. Deliveries are signed (Standard Webhooks); the signing secret is in this answer only.',
        tags,
        security,
        responseDescriptions: { 201: 'The endpoint, with its signing `secret` shown this once.' },
        body: CreateWebhookRequestSchema, response: { 201: WebhookWithSecretSchema, ...errors } },
    },
    async (req, reply) => reply.code(201).send(await createWebhook(rt, principalOf(req), req.body)),
  );
  r.get(
    '/client/webhooks',
    {
      onRequest: auth,
      schema: {
        summary: 'List webhook endpoints',
        operationId: 'listWebhooks',
        description: 'The endpoints of the credential\'s environment, newest first, filtered by status or event.',
        tags,
        security,
        responseDescriptions: { 200: 'One page of endpoints.' },
        querystring: WebhookListQuerySchema, response: { 200: listEnvelope(WebhookSchema), ...errors } },
    },
    async (req) => toEnvelope(await listWebhooks(rt.deps, principalOf(req), req.query), req.query),
  );
  r.get(
    '/client/webhooks/:id',
    { onRequest: auth, schema: {
        summary: 'Get one webhook endpoint',
        operationId: 'getWebhook',
        description: 'One endpoint, without its secret.',
        tags,
        security,
        responseDescriptions: { 200: 'The endpoint.' },
        params: Id,
        response: { 200: WebhookSchema, ...errors } } },
    async (req) => getWebhook(rt.deps, principalOf(req), req.params.id),
  );
  r.patch(
    '/client/webhooks/:id',
    {
      onRequest: auth,
      schema: {
        summary: 'Update a webhook endpoint (url, events, status, description; rotateSecret returns the new secret once)',
        operationId: 'updateWebhook',
        description:
          'Changes the fields given. `status: active` re-enables a failed endpoint; `rotateSecret: true` issues a new secret (returned once) and signs with both for 24 hours.',
        responseDescriptions: { 200: 'The updated endpoint; `secret` is present only after a rotation.' },
        tags,
        security,
        params: Id,
        body: UpdateWebhookRequestSchema,
        response: { 200: WebhookUpdateResultSchema, ...errors },
      },
    },
    async (req) => updateWebhook(rt, principalOf(req), req.params.id, req.body),
  );
  r.delete(
    '/client/webhooks/:id',
    { onRequest: auth, schema: {
        summary: 'Delete a webhook endpoint; pending deliveries stop',
        operationId: 'deleteWebhook',
        description: 'Deletes the endpoint; deliveries still waiting are not attempted.',
        tags,
        security,
        responseDescriptions: { 204: 'Deleted.' },
        params: Id,
        response: { 204: z.null().describe('No content'), ...errors } } },
    async (req, reply) => {
      await deleteWebhook(rt.deps, principalOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
  r.get(
    '/client/webhooks/:id/deliveries',
    {
      onRequest: auth,
      schema: {
        summary: 'List deliveries of a webhook',
        operationId: 'listWebhookDeliveries',
        description: 'The deliveries to one endpoint, newest first, filtered by status.',
        tags,
        security,
        responseDescriptions: { 200: 'One page of deliveries.' },
        params: Id,
        querystring: DeliveryListQuerySchema, response: { 200: listEnvelope(DeliverySchema), ...errors } },
    },
    async (req) => toEnvelope(await listDeliveries(rt.deps, principalOf(req), req.params.id, req.query), req.query),
  );
  r.get(
    '/client/webhooks/:id/deliveries/:deliveryId',
    {
      onRequest: auth,
      schema: {
        summary: 'Get one delivery with its attempt log',
        operationId: 'getWebhookDelivery',
        description: 'One delivery: the event payload and every attempt with its HTTP status, latency and error.',
        tags,
        security,
        responseDescriptions: { 200: 'The delivery and its attempts.' },
        params: DeliveryParams,
        response: { 200: DeliveryDetailSchema, ...errors } },
    },
    async (req) => getDelivery(rt.deps, principalOf(req), req.params.deliveryId, req.params.id),
  );
  r.get(
    '/client/webhooks/:id/recoveries/preview',
    {
      onRequest: auth,
      schema: {
        operationId: 'previewWebhookRecovery',
        summary: 'Preview a recovery: how many events of the period would be redelivered',
        description: RECOVERY_NOTE,
        responseDescriptions: { 200: 'What a recovery of the period would queue now; nothing is changed.' },
        tags,
        security: [{ bearer: [] }],
        params: Id,
        querystring: RecoveryPeriodSchema,
        response: { 200: RecoveryPreviewSchema, ...recoveryErrors },
      },
    },
    async (req) => {
      const p = principalOf(req);
      requireRole(p, ['OWNER', 'ADMIN']);
      return previewRecovery(rt.deps, p, req.params.id, req.query);
    },
  );
  r.post(
    '/client/webhooks/:id/recoveries',
    {
      onRequest: auth,
      schema: {
        operationId: 'recoverWebhookEvents',
        summary: 'Recover a period: redeliver its events to this webhook as new deliveries',
        description: RECOVERY_NOTE,
        responseDescriptions: { 202: 'The recovery is queued: its new deliveries go out on the normal retry schedule.' },
        tags,
        security: [{ bearer: [] }],
        params: Id,
        body: RecoveryRequestSchema,
        response: { 202: RecoveryResultSchema, ...recoveryErrors },
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      requireRole(p, ['OWNER', 'ADMIN']);
      return reply.code(202).send(await recoverWebhook(rt, p, req.params.id, req.body ?? {}, `user:${p.userId ?? p.kind}`));
    },
  );
}
