// Webhook endpoints and deliveries (interface §2.7, §2.8, §4.3; decisions §7): request and response shapes
// shared by the HTTP routes, the console channels and the renderer.
import { z } from 'zod';
import { EnvironmentSchema, IsoTimestamp, PageQuerySchema } from './common';

export const WEBHOOK_EVENTS = ['verification.completed', 'verification.failed'] as const;
export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WebhookStatusSchema = z.enum(['active', 'inactive', 'failed']);
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;

export const DeliveryStatusSchema = z.enum(['pending', 'success', 'failed']);
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

const UrlField = z.string().trim().min(1).max(2048);
const EventsField = z.array(WebhookEventSchema).min(1).max(WEBHOOK_EVENTS.length * 4);
export const WEBHOOK_DESCRIPTION_MAX = 500;
const DescriptionField = z.string().trim().max(WEBHOOK_DESCRIPTION_MAX);

export const CreateWebhookRequestSchema = z
  .object({ url: UrlField, events: EventsField, description: DescriptionField.optional() })
  .strict();
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

export const UpdateWebhookRequestSchema = z
  .object({
    url: UrlField.optional(),
    events: EventsField.optional(),
    // `failed` is set by the dispatcher only; a client re-enables with `active` (interface §3.2).
    status: z.enum(['active', 'inactive']).optional(),
    description: DescriptionField.nullable().optional(),
    rotateSecret: z.boolean().optional(),
  })
  .strict();
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequestSchema>;

export const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEventSchema),
    status: WebhookStatusSchema,
    description: z.string().nullable(),
    environment: EnvironmentSchema,
    /** First characters of the current secret, to tell secrets apart; never enough to sign. */
    secretPrefix: z.string(),
    /** While set, deliveries are signed with the previous secret too (24 h after a rotation). */
    previousSecretExpiresAt: IsoTimestamp.nullable(),
    createdAt: IsoTimestamp,
    updatedAt: IsoTimestamp,
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof WebhookSchema>;

/** Create, and update with rotateSecret: the only responses that carry the secret. */
export const WebhookWithSecretSchema = WebhookSchema.extend({ secret: z.string() }).meta({ id: 'WebhookWithSecret' });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecretSchema>;

export const WebhookUpdateResultSchema = WebhookSchema.extend({ secret: z.string().optional() });
export type WebhookUpdateResult = z.infer<typeof WebhookUpdateResultSchema>;

export const WebhookListQuerySchema = PageQuerySchema.extend({
  status: WebhookStatusSchema.optional(),
  event: WebhookEventSchema.optional(),
});
export type WebhookListQuery = z.infer<typeof WebhookListQuerySchema>;

export const DeliveryOriginSchema = z.enum(['event', 'recovery', 'trigger']);
export type DeliveryOrigin = z.infer<typeof DeliveryOriginSchema>;
export const DropReasonSchema = z.enum(['webhook_failed', 'webhook_paused', 'webhook_deleted']);
export type DropReason = z.infer<typeof DropReasonSchema>;

export const DeliveryListQuerySchema = PageQuerySchema.extend({ status: DeliveryStatusSchema.optional() });
export type DeliveryListQuery = z.infer<typeof DeliveryListQuerySchema>;

export const DeliveryResponseSchema = z.object({
  statusCode: z.number().int().nullable(),
  /** At most 2 KB of the response body. */
  body: z.string().nullable(),
  headers: z.record(z.string(), z.string()).nullable(),
});

export const AttemptKindSchema = z.enum(['scheduled', 'manual', 'replay', 'forward']);

export const DeliveryAttemptSchema = z
  .object({
    /** 1 to 5 for the scheduled attempts (and manual retries continue the count); null for replays and forwards. */
    attempt: z.number().int().nullable(),
    kind: AttemptKindSchema,
    url: z.string(),
    startedAt: IsoTimestamp,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    responseBody: z.string().nullable(),
    nextAttemptAt: IsoTimestamp.nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const DeliverySchema = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    verificationId: z.string(),
    eventId: z.string(),
    eventType: WebhookEventSchema,
    status: DeliveryStatusSchema,
    attempts: z.number().int(),
    lastAttemptAt: IsoTimestamp.nullable(),
    nextAttemptAt: IsoTimestamp.nullable(),
    payload: z.record(z.string(), z.unknown()),
    response: DeliveryResponseSchema.nullable(),
    error: z.string().nullable(),
    /** `event`: fanned out when the event happened; `recovery`: a redelivery (recoveryId); `trigger`: a sample event. */
    origin: DeliveryOriginSchema,
    /** The recovery that created this delivery (origin `recovery`); eventId is then the original event's id. */
    recoveryId: z.string().nullable(),
    /** Why a delivery ended without its attempts (its webhook failed, was paused or deleted), and when. */
    dropReason: DropReasonSchema.nullable(),
    droppedAt: IsoTimestamp.nullable(),
    createdAt: IsoTimestamp,
    updatedAt: IsoTimestamp,
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveryDetailSchema = DeliverySchema.extend({ attemptLog: z.array(DeliveryAttemptSchema) }).meta({
  id: 'WebhookDeliveryDetail',
});
export type DeliveryDetail = z.infer<typeof DeliveryDetailSchema>;

export const ReplayResultSchema = z.object({
  deliveryId: z.string(),
  url: z.string(),
  signature: z.enum(['original', 'fresh']),
  ok: z.boolean(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
});
export type ReplayResult = z.infer<typeof ReplayResultSchema>;

export const ForwardSettingSchema = z.object({ url: z.string().nullable() });
export type ForwardSetting = z.infer<typeof ForwardSettingSchema>;

/** The console's rotation answer: both secrets, so a receiver can be given the list it verifies against. */
export const RotatedWebhookSchema = WebhookWithSecretSchema.extend({
  /** The secret rotated out; it keeps signing until previousSecretExpiresAt. Null when it could not be opened. */
  previousSecret: z.string().nullable(),
});
export type RotatedWebhook = z.infer<typeof RotatedWebhookSchema>;

/** An open failure of a webhook (docs/webhooks.md "When an endpoint fails"): what the alerts show. */
export const WebhookAlertSchema = z
  .object({
    failureId: z.string(),
    webhookId: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    environment: EnvironmentSchema,
    failedAt: IsoTimestamp,
    /** The delivery whose fifth attempt failed, and that attempt's status code / error. */
    deliveryId: z.string(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    /** Pending deliveries stopped by the failure (each shows "dropped — webhook failed"). */
    droppedDeliveries: z.number().int(),
    /** Events of subscribed types since the failure, never queued for this endpoint (recoverable). */
    eventsNotSent: z.number().int(),
  })
  .meta({ id: 'WebhookAlert' });
export type WebhookAlert = z.infer<typeof WebhookAlertSchema>;

/** The period of a recovery; as a query string (the preview) it must stay a plain object without a component id. */
export const RecoveryPeriodSchema = z
  .object({
    /** Start of the period (inclusive); default: when the webhook last failed. */
    since: IsoTimestamp.optional(),
    /** End of the period (exclusive); default and upper bound: now. */
    until: IsoTimestamp.optional(),
  })
  .strict();
export const RecoveryRequestSchema = RecoveryPeriodSchema.meta({ id: 'WebhookRecoveryRequest' });
export type RecoveryRequest = z.infer<typeof RecoveryPeriodSchema>;

export const RecoveryPreviewSchema = z
  .object({
    webhookId: z.string(),
    since: IsoTimestamp,
    until: IsoTimestamp,
    /** Events of the period, of types the webhook subscribes to. */
    events: z.number().int(),
    /** Of those, already acknowledged by the endpoint or still pending: not sent again. */
    skipped: z.number().int(),
    /** What a recovery now would queue: events − skipped. */
    toDeliver: z.number().int(),
    /** True when the webhook is `failed`: recovering re-enables it first. */
    reenables: z.boolean(),
  })
  .meta({ id: 'WebhookRecoveryPreview' });
export type RecoveryPreview = z.infer<typeof RecoveryPreviewSchema>;

export const RecoveryResultSchema = z
  .object({
    recoveryId: z.string(),
    webhookId: z.string(),
    since: IsoTimestamp,
    until: IsoTimestamp,
    /** New deliveries created (origin `recovery`), each on the normal retry schedule. */
    queued: z.number().int(),
    skipped: z.number().int(),
    reenabled: z.boolean(),
    webhook: WebhookSchema,
  })
  .meta({ id: 'WebhookRecoveryResult' });
export type RecoveryResult = z.infer<typeof RecoveryResultSchema>;

export const TriggerResultSchema = z.object({
  eventType: WebhookEventSchema,
  /** One new delivery per webhook it was sent to (origin `trigger`). */
  deliveries: z.array(z.object({ webhookId: z.string(), deliveryId: z.string() })),
  /** The sample event's body (built from a sandbox fixture). */
  payload: z.record(z.string(), z.unknown()),
});
export type TriggerResult = z.infer<typeof TriggerResultSchema>;
