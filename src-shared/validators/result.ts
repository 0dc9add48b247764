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
