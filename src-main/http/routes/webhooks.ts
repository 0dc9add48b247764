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
  UpdateWebhookRequestSchema,
  WebhookListQuerySchema,
  WebhookSchema,
  WebhookUpdateResultSchema,
  WebhookWithSecretSchema,
} from '../../../src-shared/schemas/webhooks';
import { getDelivery, listDeliveries } from '../../core/webhooks/deliveries';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from '../../core/webhooks/webhooks-service';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

const Id = z.object({ id: z.string().max(100) });
const DeliveryParams = z.object({ id: z.string().max(100), deliveryId: z.string().max(100) });
const errors = { 401: ErrorBodySchema, 404: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
const security: { [name: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];
const tags = ['webhooks'];



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
    async (req) => toEnvelope(listWebhooks(rt.deps, principalOf(req), req.query), req.query),
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
      deleteWebhook(rt.deps, principalOf(req), req.params.id);
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
    async (req) => toEnvelope(listDeliveries(rt.deps, principalOf(req), req.params.id, req.query), req.query),
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
}
