// An error as a value: a catalogue code, an optional message override and field details. Thrown inside the
// core and mapped by every door (HTTP status + body, or `{ ok: false, error }` over the console bridge).
import { HTTP_ERRORS, errorBody, type ErrorBody, type FieldDetail, type HttpErrorCode } from './errors';

export class AppError extends Error {
  override name = 'AppError';
  readonly code: HttpErrorCode;
  readonly details: FieldDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /**
   * Which remedy a door that knows its user may offer instead of the code's generic action hint, when the code alone
   * does not say (one code, two causes: `SERVICE_NOT_ENABLED` for a switched-off service or a missing live provider).
   * Not part of the HTTP body.
   */
  readonly remedy: 'live-provider' | undefined;

  constructor(
    code: HttpErrorCode,
    opts: { message?: string; details?: FieldDetail[]; retryAfterSeconds?: number; remedy?: 'live-provider' } = {},
  ) {
    super(opts.message ?? HTTP_ERRORS[code].message);
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.remedy = opts.remedy;
  }

  get status(): number {
    return HTTP_ERRORS[this.code].status;
  }

  toBody(): ErrorBody {
    return errorBody(this.code, { message: this.message, ...(this.details ? { details: this.details } : {}) });
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
