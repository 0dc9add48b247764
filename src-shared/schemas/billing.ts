// Billing shapes (decisions §9): the wallet, usage records and their list filters, prices and enabled services.
import { z } from 'zod';
import { IsoDateOrInstant, IsoTimestamp, PAGE_QUERY } from './common';

export const WalletSchema = z
  .object({
    organizationId: z.string(),
    balance: z.number().int().meta({ description: 'Minor units (cents).' }),
    currency: z.string(),
    status: z.enum(['active', 'suspended']),
    createdAt: IsoTimestamp.nullable(),
    updatedAt: IsoTimestamp.nullable(),
  })
  .meta({ id: 'Wallet' });
export type WalletView = z.infer<typeof WalletSchema>;

export const UsageRecordSchema = z
  .object({
    id: z.string(),
    verificationId: z.string(),
    service: z.string(),
    kind: z.enum(['charge', 'reversal']),
    amount: z.number().int().meta({ description: 'Signed minor units: negative for a charge, positive for its reversal.' }),
    currency: z.string(),
    ledgerEntryId: z.string(),
    createdAt: IsoTimestamp,
  })
  .meta({ id: 'UsageRecord' });

export const UsageQuerySchema = z.object({
  service: z.string().max(60).optional(),
  kind: z.enum(['charge', 'reversal']).optional(),
  verificationId: z.string().max(100).optional(),
  from: IsoDateOrInstant.optional(),
  to: IsoDateOrInstant.optional(),
  ...PAGE_QUERY,
});
export type UsageQueryInput = z.infer<typeof UsageQuerySchema>;

export const ServiceKeySchema = z
  .string()
  .trim()
  .regex(/^(account:[A-Z]{2}|phone:[A-Z]{2}|identity:[a-z_]{2,40}|face|address|correspondents)$/, 'must be account:<COUNTRY>, phone:<COUNTRY>, identity:<idType>, face, address or correspondents');

export const PriceSchema = z.object({ service: z.string(), amount: z.number().int(), currency: z.string(), updatedAt: IsoTimestamp });
/** The largest top-up, price and balance in minor units: every door's bound, and the core's (billing.ts). */
export const TOP_UP_MAX = 1_000_000_000_000;
export const PRICE_MAX = 1_000_000_000;
/** Far below Number.MAX_SAFE_INTEGER: past it a balance read into JavaScript no longer equals its ledger's sum. */
export const BALANCE_MAX = 1_000_000_000_000_000;
// The shape; whether ISO 4217 lists it is the core's question (billing.ts: the wallet's own currency is allowed).
export const Currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/)
  .transform((c) => c.toUpperCase());
export const TopUpInputSchema = z.object({ amount: z.number().int().min(1).max(TOP_UP_MAX), currency: Currency });
export const SetPriceInputSchema = z.object({ service: ServiceKeySchema, amount: z.number().int().min(0).max(PRICE_MAX), currency: Currency });
export const ServiceInputSchema = z.object({ service: ServiceKeySchema });
