// An error as a value: a catalogue code, an optional message override and field details. Thrown inside the
// core and mapped by every door (HTTP status + body, or `{ ok: false, error }` over the console bridge).
import { HTTP_ERRORS, errorBody, type ErrorBody, type FieldDetail, type HttpErrorCode } from './errors';

export class AppError extends Error {
  override name = 'AppError';
  readonly code: HttpErrorCode;
  readonly details: FieldDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: HttpErrorCode,
    opts: { message?: string; details?: FieldDetail[]; retryAfterSeconds?: number } = {},
  ) {
    super(opts.message ?? HTTP_ERRORS[code].message);
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
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
