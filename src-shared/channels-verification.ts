// Console channels of the verification product and billing (phone, identity, face, address, wallet, usage, prices,
// services). Merged into CHANNELS by channels.ts with mergeChannels(..., verificationChannels).
import { z } from 'zod';
import { EnvironmentSchema, PaginationSchema } from './schemas/common';
import {
  PriceSchema,
  ServiceInputSchema,
  SetPriceInputSchema,
  TopUpInputSchema,
  UsageQuerySchema,
  UsageRecordSchema,
  WalletSchema,
} from './schemas/billing';
import { VerificationRecordSchema } from './schemas/verification';
import { AddressRequestSchema, FaceRequestSchema, IdentityRequestSchema, PhoneRequestSchema } from './schemas/verification-more';
import { channel } from './channel-def';

const Empty = z.object({}).strict();
const SubmitOutput = VerificationRecordSchema.partial().required({ id: true, status: true });

export const verificationChannels = {
  'verify:phone': channel(z.object({ environment: EnvironmentSchema, request: PhoneRequestSchema }), SubmitOutput),
  'verify:identity': channel(z.object({ environment: EnvironmentSchema, request: IdentityRequestSchema }), SubmitOutput),
  'verify:face': channel(z.object({ environment: EnvironmentSchema, request: FaceRequestSchema }), SubmitOutput),
  'verify:address': channel(z.object({ environment: EnvironmentSchema, request: AddressRequestSchema }), SubmitOutput),
  'wallet:get': channel(Empty, WalletSchema),
  'wallet:topUp': channel(TopUpInputSchema, WalletSchema),
  'wallet:setStatus': channel(z.object({ status: z.enum(['active', 'suspended']) }), WalletSchema),
  'usage:list': channel(
    z.object({ query: UsageQuerySchema.partial() }),
    z.object({ data: z.array(UsageRecordSchema), pagination: PaginationSchema }),
  ),
  'prices:list': channel(Empty, z.array(PriceSchema)),
  'prices:set': channel(SetPriceInputSchema, PriceSchema),
  'services:list': channel(Empty, z.array(z.string())),
  'services:enable': channel(ServiceInputSchema, z.object({ service: z.string(), enabled: z.boolean() })),
  'services:disable': channel(ServiceInputSchema, z.object({ service: z.string(), enabled: z.boolean() })),
};
export type VerificationChannels = typeof verificationChannels;
