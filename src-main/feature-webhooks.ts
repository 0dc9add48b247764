// The webhooks feature: management and history routes, console channels, and the dispatcher loop that turns
// outbox events into signed, retried deliveries (interface §2.7–§2.8, §6; decisions §7).
import type { z } from 'zod';
import type { webhookChannels } from '../src-shared/channels-webhooks';
import type { ConsoleContext } from './console/handlers';
import { owner } from './console/handlers';
import { getDelivery, getForward, listDeliveries, listDeliveryTimeline, replayDelivery, retryNow, setForward } from './core/webhooks/deliveries';
import { listWebhookAlerts } from './core/webhooks/failures';
import { previewRecovery, recoverWebhook } from './core/webhooks/recovery';
import { triggerSampleEvent } from './core/webhooks/triggers';
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './core/webhooks/webhooks-service';
import type { Feature } from './features';
import { registerWebhookRoutes } from './http/routes/webhooks';
import { WebhookDispatcher } from './jobs/webhook-dispatcher';
import { toEnvelope, withPage } from '../src-shared/schemas/common';

type WebhookChannels = typeof webhookChannels;
export type WebhookHandlers = {
  [K in keyof WebhookChannels]: (input: z.output<WebhookChannels[K]['input']>) => Promise<z.output<WebhookChannels[K]['output']>>;
};


export function webhookConsoleHandlers(ctx: ConsoleContext): WebhookHandlers {
  const { rt } = ctx;
  return {
    'webhooks:list': async ({ environment, query }) => {
      const q = withPage(query);
      return toEnvelope(await listWebhooks(rt.deps, await owner(ctx, environment), q), q);
    },
    'webhooks:create': async ({ environment, request }) => createWebhook(rt, await owner(ctx, environment), request),
    'webhooks:update': async ({ environment, id, patch }) => {
      const { secret: _none, ...hook } = await updateWebhook(rt, await owner(ctx, environment), id, patch);
      return hook;
    },
    'webhooks:rotate': async ({ environment, id }) => rotateWebhookSecret(rt, await owner(ctx, environment), id),
    'webhooks:delete': async ({ environment, id }) => {
      await deleteWebhook(rt.deps, await owner(ctx, environment), id);
      return { id, deleted: true as const };
    },
    'webhooks:deliveries': async ({ environment, webhookId, query }) => {
      const q = withPage(query);
      return toEnvelope(await listDeliveries(rt.deps, await owner(ctx, environment), webhookId, q), q);
    },
    'webhooks:delivery': async ({ environment, id }) => getDelivery(rt.deps, await owner(ctx, environment), id),
    'webhooks:timeline': async ({ environment, webhookId, query }) => {
      const q = withPage(query);
      return toEnvelope(await listDeliveryTimeline(rt.deps, await owner(ctx, environment), webhookId, q), q);
    },
    'webhooks:replay': async ({ environment, id, to, resign }) =>
      replayDelivery(rt, await owner(ctx, environment), id, { target: to ?? 'webhook', resign }),
    'webhooks:retryNow': async ({ environment, id }) => retryNow(rt, await owner(ctx, environment), id),
    'webhooks:setForward': async ({ url }) => setForward(rt, (await owner(ctx)).organizationId, url),
    'webhooks:getForward': async () => ({ url: await getForward(rt.deps, (await owner(ctx)).organizationId) }),
    'webhooks:alerts': async ({ environment }) => ({ data: await listWebhookAlerts(rt.deps, await owner(ctx, environment)) }),
    'webhooks:recoverPreview': async ({ environment, id, period }) => previewRecovery(rt.deps, await owner(ctx, environment), id, period ?? {}),
    'webhooks:recover': async ({ environment, id, period }) => recoverWebhook(rt, await owner(ctx, environment), id, period ?? {}, 'console'),
    'webhooks:trigger': async ({ environment, event, id }) => triggerSampleEvent(rt, await owner(ctx, environment), event, id),
  };
}

export const webhooksFeature: Feature = {
  name: 'webhooks',
  httpRoutes: registerWebhookRoutes,
  consoleHandlers: (ctx) => webhookConsoleHandlers(ctx),
  start: (f) => {
    const dispatcher = new WebhookDispatcher(f.rt);
    dispatcher.start();
    return { stop: () => dispatcher.stop() };
  },
};
