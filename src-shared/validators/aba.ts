// US ABA routing transit number: 9 digits, 3-7-1 weighted checksum, prefix ranges set by the Federal Reserve.
import { type Check, digitAt, fail, pass, exactDigitsProblem } from './result';

const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

/** Exactly nine ASCII digits (what `/^\d{9}$/` accepts), by char codes: batch files check this per row. */
export function isNineDigits(v: string): boolean {
  if (v.length !== 9) return false;
  for (let i = 0; i < 9; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export function abaChecksumValid(routing: string): boolean {
  if (!isNineDigits(routing)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += digitAt(routing, i) * (WEIGHTS[i] ?? 0);
  return sum % 10 === 0;
}

/** First two digits: 01-12 banks, 21-32 thrifts, 61-72 electronic; 00 government, 80 traveller's cheques. */
function prefixValid(prefix: number): boolean {
  return (
    (prefix >= 0 && prefix <= 12) ||
    (prefix >= 21 && prefix <= 32) ||
    (prefix >= 61 && prefix <= 72) ||
    prefix === 80
  );
}

/** Federal Reserve district 1..12, or null for prefixes 00 and 80 that name no district. */
export function federalReserveDistrict(routing: string): number | null {
  const a = routing.charCodeAt(0) - 48;
  const b = routing.charCodeAt(1) - 48;
  if (!(a >= 0 && a <= 9 && b >= 0 && b <= 9)) return null;
  const prefix = a * 10 + b;
  if (prefix >= 1 && prefix <= 12) return prefix;
  if (prefix >= 21 && prefix <= 32) return prefix - 20;
  if (prefix >= 61 && prefix <= 72) return prefix - 60;
  return null;
}

export type AbaProblemCode = 'ROUTING_NUMBER_FORMAT' | 'ROUTING_NUMBER_PREFIX' | 'ROUTING_NUMBER_CHECKSUM';

export interface AbaVerdict {
  nineDigits: boolean;
  checksumValid: boolean;
  /** 1..12, or null (not nine digits, or prefix 00 / 80 / outside the Federal Reserve ranges). */
  district: number | null;
  /** Empty when the number is a valid routing number: nine digits, a Federal Reserve prefix, the 3-7-1 checksum. */
  problems: { code: AbaProblemCode; reason: string }[];
}

/**
 * The routing-number rule of the bank routing checks, in one place: the live check (routing/checks.ts) answers
 * with it, and a directory import (routing/directory-csv.ts) refuses the rows it would refuse. `v` is trimmed.
 */
export function judgeAba(v: string): AbaVerdict {
  const nineDigits = isNineDigits(v);
  const checksumValid = nineDigits && abaChecksumValid(v);
  const district = nineDigits ? federalReserveDistrict(v) : null;
  const problems: AbaVerdict['problems'] = [];
  if (!nineDigits) {
    problems.push({ code: 'ROUTING_NUMBER_FORMAT', reason: `A US ABA routing number has exactly 9 digits; "${v}" does not.` });
  } else {
    const prefix = v.slice(0, 2);
    // 00 (government) and 80 (traveller's cheques) are valid prefixes that name no district.
    if (district === null && prefix !== '00' && prefix !== '80') {
      problems.push({ code: 'ROUTING_NUMBER_PREFIX', reason: `An ABA routing number cannot start with ${prefix} (not a Federal Reserve range).` });
    }
    if (!checksumValid) problems.push({ code: 'ROUTING_NUMBER_CHECKSUM', reason: 'The ABA routing number check digit does not match (3-7-1 checksum).' });
  }
  return { nineDigits, checksumValid, district, problems };
}

export function validateAba(value: string): Check {
  const v = value.trim();
  const problem = exactDigitsProblem(v, 9, 'A US ABA routing number');
  if (problem) return fail(problem);
  if (!prefixValid(Number(v.slice(0, 2)))) {
    return fail(`An ABA routing number cannot start with ${v.slice(0, 2)}.`);
  }
  if (!abaChecksumValid(v)) return fail('The ABA routing number check digit does not match.');
  return pass(v);
}
