// Console channels of the webhooks domain (merged into CHANNELS by channels.ts): management, delivery history
// and the developer tools of decisions §7 (replay, retry now, forwarding to a local receiver), plus the operations
// of docs/webhooks.md: failure alerts, recovery and sample events.
import { z } from 'zod';
import { PaginationSchema } from './schemas/common';
import {
  CreateWebhookRequestSchema,
  DeliveryDetailSchema,
  DeliveryListQuerySchema,
  DeliverySchema,
  ForwardSettingSchema,
  RecoveryPreviewSchema,
  RecoveryRequestSchema,
  RecoveryResultSchema,
  ReplayResultSchema,
  RotatedWebhookSchema,
  TriggerResultSchema,
  UpdateWebhookRequestSchema,
  WebhookAlertSchema,
  WebhookEventSchema,
  WebhookListQuerySchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './schemas/webhooks';
import { channel, EnvInput, IdInput } from './channel-def';

const Env = EnvInput;
const Id = IdInput;
/** One page of a webhook's deliveries: webhooks:deliveries and webhooks:timeline take the same input. */
const DeliveryPageInput = z.object({ ...Env, webhookId: Id, query: DeliveryListQuerySchema.partial().optional() });

export const webhookChannels = {
  'webhooks:list': channel(
    z.object({ ...Env, query: WebhookListQuerySchema.partial().optional() }),
    z.object({ data: z.array(WebhookSchema), pagination: PaginationSchema }),
  ),
  'webhooks:create': channel(z.object({ ...Env, request: CreateWebhookRequestSchema }), WebhookWithSecretSchema),
  'webhooks:update': channel(z.object({ ...Env, id: Id, patch: UpdateWebhookRequestSchema.omit({ rotateSecret: true }) }), WebhookSchema),
  'webhooks:rotate': channel(z.object({ ...Env, id: Id }), RotatedWebhookSchema),
  'webhooks:delete': channel(z.object({ ...Env, id: Id }), z.object({ id: z.string(), deleted: z.literal(true) })),
  'webhooks:deliveries': channel(
    DeliveryPageInput,
    z.object({ data: z.array(DeliverySchema), pagination: PaginationSchema }),
  ),
  'webhooks:delivery': channel(z.object({ ...Env, id: Id }), DeliveryDetailSchema),
  /** A page of webhooks:deliveries with each delivery's attempt log (the console's delivery timeline), in one call. */
  'webhooks:timeline': channel(
    DeliveryPageInput,
    z.object({ data: z.array(DeliveryDetailSchema), pagination: PaginationSchema }),
  ),
  'webhooks:replay': channel(
    z.object({
      ...Env,
      id: Id,
      /** Omitted: the webhook's own URL. A local receiver (http://localhost:PORT) is allowed here. */
      to: z.string().trim().min(1).max(2048).optional(),
      resign: z.boolean().default(false),
    }),
    ReplayResultSchema,
  ),
  'webhooks:retryNow': channel(z.object({ ...Env, id: Id }), DeliveryDetailSchema),
  'webhooks:setForward': channel(z.object({ url: z.string().trim().max(2048).nullable() }), ForwardSettingSchema),
  'webhooks:getForward': channel(z.object({}).strict(), ForwardSettingSchema),
  /** Open failures of the environment (the dashboard's and the webhooks page's alert). */
  'webhooks:alerts': channel(z.object({ ...Env }), z.object({ data: z.array(WebhookAlertSchema) })),
  'webhooks:recoverPreview': channel(z.object({ ...Env, id: Id, period: RecoveryRequestSchema.optional() }), RecoveryPreviewSchema),
  'webhooks:recover': channel(z.object({ ...Env, id: Id, period: RecoveryRequestSchema.optional() }), RecoveryResultSchema),
  /** A sample event through the normal signed path; id omitted: every active webhook subscribed to it. */
  'webhooks:trigger': channel(z.object({ ...Env, event: WebhookEventSchema, id: Id.optional() }), TriggerResultSchema),
};
