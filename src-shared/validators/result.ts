// Common result shape and input clean-up for the format validators in this folder.
// Results are values, never thrown errors, so they cross IPC and HTTP boundaries unchanged.

export type Check = { ok: true; value: string } | { ok: false; reason: string };

export function pass(value: string): Check {
  return { ok: true, value };
}

export function fail(reason: string): Check {
  return { ok: false, reason };
}

/** Removes the separators people type into codes (spaces, dots, dashes, slashes). */
export function compact(value: string, separators: RegExp = /[\s.\-/]/g): string {
  return value.trim().replace(separators, '');
}

export function digitAt(value: string, index: number): number {
  // Callers have already checked the string is all digits; NaN would only hide a bug.
  const code = value.charCodeAt(index) - 48;
  if (!(code >= 0 && code <= 9)) throw new RangeError(`not a digit at ${index}`);
  return code;
}

/**
 * Why a value is not `n` digits, in the words a person fixing a typo needs (issue 13 §5): a letter or symbol
 * says "digits only" and names it, a wrong count says how many there are. Null when the value is `n` digits.
 * Used by the API's format failures and the console's forms alike, so both say the same thing.
 */
export function exactDigitsProblem(value: string, n: number, what: string): string | null {
  const v = value.trim();
  if (v.length === n && /^\d+$/.test(v)) return null;
  const bad = /\D/u.exec(v)?.[0];
  if (bad !== undefined) return `${what} takes digits only: “${bad}” is not a digit.`;
  return `${what} has exactly ${n} digits; this one has ${v.length}.`;
}

/** As exactDigitsProblem, for a length range (after the separators people type are removed). */
export function digitRangeProblem(value: string, min: number, max: number, what: string): string | null {
  const bad = /\D/u.exec(value)?.[0];
  if (bad !== undefined) return `${what} takes digits only: “${bad}” is not a digit.`;
  if (value.length < min || value.length > max) return `${what} has ${min} to ${max} digits; this one has ${value.length}.`;
  return null;
}
