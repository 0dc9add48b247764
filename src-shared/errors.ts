// The one error catalogue: every error code the service can produce, with its HTTP status, its action type
// and its message. Codes of HTTP errors (decisions §1) and of verification results (interface §7.3/§7.4) live here.

export type ActionType =
  | 'CONTACT_ADMIN'
  | 'TOP_UP_WALLET'
  | 'CHECK_API_KEY'
  | 'FIX_INPUT'
  | 'RETRY_LATER'
  | 'USE_NEW_KEY'
  | 'WAIT_AND_RETRY';

export interface HttpErrorDef {
  status: number;
  action?: ActionType;
  message: string;
  hint?: string;
}

/** Errors answered with a non-2xx HTTP status. */
export const HTTP_ERRORS = {
  INVALID_JSON: { status: 400, action: 'FIX_INPUT', message: 'The request body is not valid JSON.' },
  API_KEY_MISSING: {
    status: 401,
    action: 'CHECK_API_KEY',
    message: 'No API key was sent. Send it in the X-API-Key header.',
  },
  API_KEY_INVALID: { status: 401, action: 'CHECK_API_KEY', message: 'The API key is not valid.' },
  API_KEY_REVOKED: { status: 401, action: 'CHECK_API_KEY', message: 'The API key has been revoked.' },
  TOKEN_INVALID: { status: 401, message: 'The access token is missing or not valid.' },
  TOKEN_EXPIRED: { status: 401, message: 'The access token has expired. Refresh the session.' },
  INVALID_CREDENTIALS: { status: 401, message: 'The email or password is not correct.' },
  INSUFFICIENT_FUNDS: {
    status: 402,
    action: 'TOP_UP_WALLET',
    message: 'The wallet balance does not cover the price of this verification.',
  },
  WALLET_SUSPENDED: { status: 402, action: 'CONTACT_ADMIN', message: 'The wallet is suspended.' },
  SERVICE_PRICE_NOT_CONFIGURED: {
    status: 402,
    action: 'CONTACT_ADMIN',
    message: 'No price is configured for this service.',
  },
  FORBIDDEN: { status: 403, message: 'Your role does not allow this action.' },
  SERVICE_NOT_ENABLED: {
    status: 403,
    action: 'CONTACT_ADMIN',
    message: 'This service is not enabled for the organization.',
  },
  NOT_FOUND: { status: 404, message: 'The resource does not exist.' },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    action: 'RETRY_LATER',
    message: 'A request with this Idempotency-Key is still being processed. Retry shortly with the same key.',
  },
  IDEMPOTENCY_KEY_CONFLICT: {
    status: 409,
    action: 'USE_NEW_KEY',
    message: 'This Idempotency-Key was already used with a different request body.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, action: 'FIX_INPUT', message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    action: 'FIX_INPUT',
    message: 'The request body must be JSON (Content-Type: application/json).',
  },
  VALIDATION_ERROR: { status: 422, action: 'FIX_INPUT', message: 'The request failed validation.' },
  UNSUPPORTED_CORRIDOR: {
    status: 422,
    action: 'FIX_INPUT',
    message: 'This country is not supported for this kind of verification.',
  },
  ASYNC_NOT_SUPPORTED: {
    status: 422,
    action: 'FIX_INPUT',
    message: 'This corridor is synchronous only; omit mode or use a corridor that allows async.',
  },
  INVALID_WEBHOOK_URL: {
    status: 422,
    action: 'FIX_INPUT',
    message: 'The webhook URL must be a publicly reachable https:// URL.',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 422,
    action: 'FIX_INPUT',
    message: 'The Idempotency-Key header is required. Generate a unique key and retry.',
  },
  IDEMPOTENCY_KEY_INVALID: {
    status: 422,
    action: 'FIX_INPUT',
    message: 'The Idempotency-Key must be 1 to 255 printable ASCII characters.',
  },
  BATCH_TOO_LARGE: { status: 422, action: 'FIX_INPUT', message: 'A batch holds at most 100 items.' },
  HEADERS_TOO_LARGE: { status: 431, action: 'FIX_INPUT', message: 'The request line or headers are too large.' },
  RATE_LIMITED: {
    status: 429,
    action: 'WAIT_AND_RETRY',
    message: 'Too many requests. Wait before retrying.',
  },
  TOO_MANY_LOGIN_ATTEMPTS: {
    status: 429,
    action: 'WAIT_AND_RETRY',
    message: 'Too many failed sign-in attempts for this account. Wait before retrying.',
  },
  STORAGE_UNAVAILABLE: {
    status: 503,
    action: 'WAIT_AND_RETRY',
    message: 'The service cannot write to its data folder right now (the disk is full or read-only). Nothing was recorded; retry after the time given by Retry-After.',
  },
  SERVICE_STOPPING: {
    status: 503,
    action: 'WAIT_AND_RETRY',
    message: 'The service is stopping (a restart or a shutdown). Nothing was done; retry after the time given by Retry-After.',
  },
  INTERNAL_ERROR: {
    status: 500,
    action: 'RETRY_LATER',
    message: 'An unexpected error occurred. It has been logged.',
  },
} as const satisfies Record<string, HttpErrorDef>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

export const ACTION_HINTS: Record<ActionType, string> = {
  CONTACT_ADMIN: 'Ask an administrator of your organization to configure this.',
  TOP_UP_WALLET: 'Top up the wallet, then retry.',
  CHECK_API_KEY: 'Check that the X-API-Key header carries an active key of this environment.',
  FIX_INPUT: 'Correct the request, then retry.',
  RETRY_LATER: 'Retry later with exponential backoff.',
  USE_NEW_KEY: 'Send this request with a new Idempotency-Key.',
  WAIT_AND_RETRY: 'Wait for the time given by the Retry-After header, then retry.',
};

/** Verification error codes carried in `error.code` of a result (HTTP 200). */
export const VERIFICATION_ERRORS = {
  ACCOUNT_NOT_FOUND: { charged: true, message: 'The account was not found at the bank.' },
  ACCOUNT_INACTIVE: {
    charged: true,
    message: 'The account was found but is inactive, dormant or blocked.',
  },
  INVALID_BANK_CODE: { charged: false, message: 'The bank code is not recognized.' },
  INVALID_ACCOUNT_NUMBER: { charged: false, message: 'The account number format is not valid.' },
  SUBSCRIBER_NOT_FOUND: { charged: true, message: 'The number is not registered with the carrier.' },
  INVALID_PHONE_NUMBER: { charged: false, message: 'The phone number format is not valid.' },
  INVALID_NETWORK_CODE: { charged: false, message: 'The network code is not recognized for this country.' },
  NETWORK_CODE_REQUIRED: { charged: false, message: 'A networkCode is required for this country.' },
  IDENTIFIER_NOT_FOUND: { charged: true, message: 'The identifier was not found in the registry.' },
  FACE_MATCH_FAILED: { charged: true, message: 'Facial verification did not match.' },
  VERIFICATION_ERROR: {
    charged: false,
    fixed: true,
    message: 'An unexpected error occurred during verification. Retry with backoff.',
  },
  VERIFICATION_TIMEOUT: {
    charged: false,
    fixed: true,
    message: 'The verification did not finish within the allowed time. Retry later.',
  },
  VERIFICATION_UNAVAILABLE: {
    charged: false,
    fixed: true,
    message: 'The verification service is temporarily unavailable. Retry later.',
  },
  VERIFICATION_RATE_LIMITED: {
    charged: false,
    fixed: true,
    message: 'Too many verification requests in a short window. Retry later.',
  },
  VERIFICATION_CANCELLED: {
    charged: false,
    fixed: true,
    message: 'The verification was cancelled before completion.',
  },
  INCONCLUSIVE: {
    charged: false,
    fixed: true,
    message: 'No definitive result could be obtained. This is not a negative result; retry later.',
  },
  VERIFICATION_FAILED: { charged: true, message: 'The verification failed.' },
  TEST_NUMBER_NOT_FOUND: {
    charged: false,
    message: 'This identifier is not in the sandbox test data. See GET /api/v1/sandbox/fixtures.',
  },
} as const satisfies Record<string, { charged: boolean; message: string; fixed?: boolean }>;

export type VerificationErrorCode = keyof typeof VERIFICATION_ERRORS;

/** The six codes whose message depends only on the code (interface §7.3 message rule 1). */
export const FIXED_MESSAGE_CODES = Object.keys(VERIFICATION_ERRORS).filter(
  (c) => (VERIFICATION_ERRORS[c as VerificationErrorCode] as { fixed?: boolean }).fixed === true,
) as VerificationErrorCode[];

/** The six messages of FACE_MATCH_FAILED (interface §7.3 rule 4). */
export const FACE_MATCH_MESSAGES = [
  'Facial verification did not match.',
  'Liveness check failed.',
  'No face detected.',
  'Photo quality too low.',
  'Multiple faces detected.',
  'Facial verification failed (check could not complete).',
] as const;

/** Verification error codes with status `error` (no answer) rather than `failed`. */
export const TRANSIENT_CODES: readonly VerificationErrorCode[] = [
  'VERIFICATION_ERROR',
  'VERIFICATION_TIMEOUT',
  'VERIFICATION_UNAVAILABLE',
  'VERIFICATION_RATE_LIMITED',
  'VERIFICATION_CANCELLED',
];

export interface FieldDetail {
  field: string;
  message: string;
}

export interface ErrorBody {
  message: string;
  code: string;
  statusCode: number;
  action?: { type: ActionType; hint: string };
  details?: FieldDetail[];
}

/** The FIX_INPUT hint when the body lists the fields to correct (every 422 does, decisions §1). */
export const FIX_FIELDS_HINT = 'Correct the fields listed in details, then retry.';

/**
 * The field a 422 is about when the code alone says it (decisions §1: every 422 carries `details`). A thrower
 * with a more precise detail passes its own; a 422 thrown with none gets this one, or the whole request.
 */
const DEFAULT_422_FIELD: Partial<Record<HttpErrorCode, string>> = {
  IDEMPOTENCY_KEY_REQUIRED: 'Idempotency-Key',
  IDEMPOTENCY_KEY_INVALID: 'Idempotency-Key',
  BATCH_TOO_LARGE: 'items',
  UNSUPPORTED_CORRIDOR: 'country',
  ASYNC_NOT_SUPPORTED: 'mode',
  INVALID_WEBHOOK_URL: 'url',
};

export function errorBody(code: HttpErrorCode, opts: { message?: string; details?: FieldDetail[]; hint?: string } = {}): ErrorBody {
  const def: HttpErrorDef = HTTP_ERRORS[code];
  const message = opts.message ?? def.message;
  const body: ErrorBody = { message, code, statusCode: def.status };
  let details = opts.details && opts.details.length > 0 ? opts.details : undefined;
  if (!details && def.status === 422) details = [{ field: DEFAULT_422_FIELD[code] ?? '(request)', message }];
  if (def.action) {
    const hint = opts.hint ?? (def.action === 'FIX_INPUT' && details ? FIX_FIELDS_HINT : ACTION_HINTS[def.action]);
    body.action = { type: def.action, hint };
  }
  if (details) body.details = details;
  return body;
}
