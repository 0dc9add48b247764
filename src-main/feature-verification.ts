// The verification product beyond bank accounts — phone, identity, Ghana Card facial, address — and live billing:
// their kinds, the sync-charge guard job, HTTP routes and console handlers, as one Feature for features.ts.
import type { z } from 'zod';
import type { VerificationChannels } from '../src-shared/channels-verification';
import type { Environment } from '../src-shared/schemas/common';
import {
  disableService,
  enableService,
  getWallet,
  listEnabledServices,
  listPrices,
  listUsage,
  setPrice,
  setWalletStatus,
  topUp,
} from './core/billing/billing';
import { addressSpec } from './core/verification/address-spec';
import { resolveStaleSync, SYNC_GUARD_JOB } from './core/verification/engine';
import { faceSpec } from './core/verification/face-spec';
import { identitySpec } from './core/verification/identity-spec';
import { phoneSpec } from './core/verification/phone-spec';
import type { KindSpec, VerificationKind } from './core/verification/types';
import { submitOnce } from './core/verification/verification-service';
import { owner, type ConsoleContext } from './console/handlers';
import type { Feature } from './features';
import { registerBillingRoutes } from './http/routes/billing';
import { registerVerifyMoreRoutes } from './http/routes/verify-more';
import { toEnvelope, withPage } from '../src-shared/schemas/common';

type VerificationHandlers = {
  [K in keyof VerificationChannels]: (input: z.output<VerificationChannels[K]['input']>) => Promise<z.input<VerificationChannels[K]['output']>>;
};

function consoleHandlers(ctx: ConsoleContext): VerificationHandlers {
  const { rt } = ctx;
  // Each console submission is a new request with its own idempotency key, through the same path as the API.
  const verify = async (kind: VerificationKind, environment: Environment, request: object) => {
    const res = await submitOnce(rt.verification, await owner(ctx, environment), kind, request);
    return JSON.parse(res.body) as { id: string; status: 'pending' | 'success' | 'failed' | 'error' };
  };
  const org = async () => (await owner(ctx)).organizationId;
  return {
    'verify:phone': ({ environment, request }) => verify('phone', environment, request),
    'verify:identity': ({ environment, request }) => verify('identity', environment, request),
    'verify:face': ({ environment, request }) => verify('face', environment, request),
    'verify:address': ({ environment, request }) => verify('address', environment, request),
    'wallet:get': async () => getWallet(rt.deps, await org()),
    'wallet:topUp': async ({ amount, currency }) => topUp(rt.deps, await org(), amount, currency),
    'wallet:setStatus': async ({ status }) => setWalletStatus(rt.deps, await org(), status),
    'usage:list': async ({ query }) => {
      const q = withPage(query);
      return toEnvelope(await listUsage(rt.deps, await org(), q), q);
    },
    'prices:list': async () => listPrices(rt.deps, await org()),
    'prices:set': async ({ service, amount, currency }) => setPrice(rt.deps, await org(), service, amount, currency),
    'services:list': async () => listEnabledServices(rt.deps, await org()),
    'services:enable': async ({ service }) => enableService(rt.deps, await org(), service),
    'services:disable': async ({ service }) => disableService(rt.deps, await org(), service),
  };
}

export const verificationFeature: Feature = {
  name: 'verification-product',
  specs: {
    phone: phoneSpec as KindSpec<unknown>,
    identity: identitySpec as KindSpec<unknown>,
    face: faceSpec as KindSpec<unknown>,
    address: addressSpec as KindSpec<unknown>,
  },
  jobHandlers: (f) => ({
    [SYNC_GUARD_JOB]: (job) => resolveStaleSync(f.rt.verification, (job.payload as { verificationId: string }).verificationId),
  }),
  httpRoutes: (door) => {
    registerVerifyMoreRoutes(door);
    registerBillingRoutes(door);
  },
  // Typed against verificationChannels; becomes a plain Partial<Handlers> once that map is merged into CHANNELS.
  consoleHandlers: (ctx) => consoleHandlers(ctx),
};
