// The shape every verification kind plugs into the shared flow of engine.ts: how to validate it (the three
// layers of decisions §2), how to ask a provider, and which result fields to return.
import type { VerificationErrorCode } from '../../../src-shared/errors';
import type { Environment } from '../../../src-shared/schemas/common';
import type { VerificationRecord, VerificationType } from '../../../src-shared/schemas/verification';

export type VerificationKind = 'account' | 'phone' | 'identity' | 'face' | 'address';

export interface FieldIssue {
  field: string;
  message: string;
}

/** What a provider (sandbox fixtures, the billed stand-in, or a live upstream) answered. */
export interface ProviderAnswer {
  outcome: 'success' | 'failed' | 'error';
  errorCode?: VerificationErrorCode;
  /** Result-specific message; ignored for the codes whose message is fixed. */
  message?: string;
  fields?: Partial<Pick<VerificationRecord, 'accountName' | 'bankName' | 'fullName' | 'firstName' | 'lastName' | 'middleName' | 'dateOfBirth' | 'address'>>;
  source?: 'live' | 'cache';
  /**
   * The service stopped before the upstream answered (our own cancellation at shutdown): a sync caller gets
   * VERIFICATION_CANCELLED, but a queued check is not finalised — it asks again after the restart.
   */
  interrupted?: boolean;
}

export interface ProviderContext {
  environment: Environment;
  verificationId: string;
  /** The caller's organization (the live cache is per organization). */
  organizationId?: string;
  /** The corridor or market, as the kind's spec reads it from the request (provider routing). */
  country?: string;
  /** Aborts the upstream call: the check answers VERIFICATION_CANCELLED. */
  signal?: AbortSignal;
}

export type ResultFields = Partial<Omit<VerificationRecord, 'id' | 'status' | 'verified' | 'verificationType' | 'identifier' | 'country' | 'environment' | 'mode' | 'createdAt' | 'completedAt' | 'charge' | 'error'>>;

export interface KindSpec<Req> {
  kind: VerificationKind;
  verificationType(req: Req): VerificationType;
  identifier(req: Req): string;
  country(req: Req): string;
  /** Layer 1: the country is supported for this kind (else 422 UNSUPPORTED_CORRIDOR). */
  supported(req: Req): boolean;
  asyncAllowed(req: Req): boolean;
  /** Layer 1: missing or inconsistent fields (422 VALIDATION_ERROR). */
  issues(req: Req): FieldIssue[];
  /** Layer 2: local format and checksum failures (200, status failed, never charged). */
  formatFailure(req: Req): { code: VerificationErrorCode; message: string } | null;
  /** Billing service key of decisions §9 (e.g. `account:NG`). */
  serviceKey(req: Req): string;
  /** Fields echoed on every record of this kind (pending included). */
  baseFields(req: Req): ResultFields;
  /** Fields returned once the provider answered. */
  answerFields(req: Req, answer: ProviderAnswer): ResultFields;
}
