// Phone verification markets (interface §2.4, decisions §4) as data, with the two validation layers
// of decisions §2 for phone requests. Pure: shared by the service and the console.
import { getCountryCallingCode, parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js';
import type { FieldIssue } from './corridors';

export interface PhoneMarket {
  country: string;
  name: string;
  /** Accepted networkCode values in their documented spelling; matched case-insensitively. Empty when not used. */
  networkCodes: readonly string[];
  networkCodeRequired: boolean;
  asyncAllowed: boolean;
  /** A valid local number (Google libphonenumber's example mobile number) for placeholders. */
  sample: { phoneNumber: string; networkCode?: string };
}

function market(
  country: string,
  name: string,
  networkCodes: string[],
  sample: { phoneNumber: string; networkCode?: string },
): PhoneMarket {
  return {
    country,
    name,
    networkCodes: Object.freeze([...networkCodes]),
    networkCodeRequired: networkCodes.length > 0,
    asyncAllowed: true,
    sample,
  };
}

// Ghana's codes keep the spelling of interface §2.4 (MTN, Vodafone, AirtelTigo); matching ignores case.
export const PHONE_MARKETS: readonly PhoneMarket[] = Object.freeze([
  market('NG', 'Nigeria', [], { phoneNumber: '0802 123 4567' }),
  market('GH', 'Ghana', ['MTN', 'Vodafone', 'AirtelTigo'], { phoneNumber: '023 123 4567', networkCode: 'MTN' }),
  market('KE', 'Kenya', [], { phoneNumber: '254712123456' }),
  market('CI', "Côte d'Ivoire", ['ORANGE', 'MTN', 'MOOV'], { phoneNumber: '01 23 45 6789', networkCode: 'ORANGE' }),
  market('SN', 'Senegal', ['ORANGE', 'FREE', 'EXPRESSO'], { phoneNumber: '70 123 45 67', networkCode: 'ORANGE' }),
  market('CM', 'Cameroon', ['MTN', 'ORANGE'], { phoneNumber: '6 71 23 45 67', networkCode: 'MTN' }),
  market('BF', 'Burkina Faso', ['ORANGE', 'MOOV', 'TELECEL'], { phoneNumber: '70 12 34 56', networkCode: 'ORANGE' }),
  market('ML', 'Mali', ['ORANGE', 'MOOV', 'TELECEL'], { phoneNumber: '65 01 23 45', networkCode: 'ORANGE' }),
  market('BJ', 'Benin', ['MTN', 'MOOV', 'CELTIIS'], { phoneNumber: '01 95 12 34 56', networkCode: 'MTN' }),
  market('TG', 'Togo', ['TOGOCOM', 'MOOV'], { phoneNumber: '90 11 23 45', networkCode: 'TOGOCOM' }),
  market('TZ', 'Tanzania', ['VODACOM', 'AIRTEL', 'YAS', 'HALOTEL', 'TTCL'], { phoneNumber: '0621 234 567', networkCode: 'VODACOM' }),
]);

const BY_COUNTRY = new Map(PHONE_MARKETS.map((m) => [m.country, m]));

export function getPhoneMarket(country: string): PhoneMarket | undefined {
  return BY_COUNTRY.get(country.trim().toUpperCase());
}

export const SUPPORTED_PHONE_COUNTRIES: readonly string[] = Object.freeze(PHONE_MARKETS.map((m) => m.country));

export interface PhoneRequestLike {
  country: string;
  phoneNumber: string;
  networkCode?: string;
  mode?: 'async';
}

/** Layer 1 (HTTP 422). An issue on field 'country' maps to UNSUPPORTED_CORRIDOR, others to VALIDATION_ERROR. */
export function phoneRequestIssues(req: PhoneRequestLike): FieldIssue[] {
  const country = typeof req.country === 'string' ? req.country.trim().toUpperCase() : '';
  if (getPhoneMarket(country) === undefined) {
    return [
      {
        field: 'country',
        message: country === '' ? 'country is required.' : `Phone verification is not available for country ${country}.`,
      },
    ];
  }
  if (typeof req.phoneNumber !== 'string' || req.phoneNumber.trim() === '') {
    return [{ field: 'phoneNumber', message: 'phoneNumber is required.' }];
  }
  return [];
}

function parseFor(market: PhoneMarket, value: string): PhoneNumber | undefined {
  const v = value.trim();
  // libphonenumber extracts numbers from free text; a request field must be the number and nothing else.
  if (!/^\+?[\d\s().-]+$/.test(v)) return undefined;
  const country = market.country as CountryCode;
  const parsed = parsePhoneNumberFromString(v, country);
  if (parsed === undefined || !parsed.isValid()) return undefined;
  if (parsed.countryCallingCode !== getCountryCallingCode(country)) return undefined;
  if (parsed.country !== undefined && parsed.country !== country) return undefined;
  return parsed;
}

export type PhoneFormatFailure = {
  code: 'INVALID_PHONE_NUMBER' | 'INVALID_NETWORK_CODE' | 'NETWORK_CODE_REQUIRED';
  message: string;
};

/** Layer 2 (HTTP 200, recorded as `failed`, never charged). Call after phoneRequestIssues found nothing. */
export function phoneFormatFailure(req: PhoneRequestLike): PhoneFormatFailure | null {
  const market = getPhoneMarket(req.country);
  if (market === undefined) return null;
  if (parseFor(market, req.phoneNumber ?? '') === undefined) {
    return {
      code: 'INVALID_PHONE_NUMBER',
      message: `${req.phoneNumber} is not a valid ${market.name} phone number.`,
    };
  }
  const networkCode = req.networkCode?.trim() ?? '';
  if (market.networkCodeRequired && networkCode === '') {
    return {
      code: 'NETWORK_CODE_REQUIRED',
      message: `networkCode is required for ${market.name}: one of ${market.networkCodes.join(', ')}.`,
    };
  }
  if (market.networkCodes.length > 0 && canonicalNetworkCode(market.country, networkCode) === null) {
    return {
      code: 'INVALID_NETWORK_CODE',
      message: `${networkCode} is not a ${market.name} network code; use one of ${market.networkCodes.join(', ')}.`,
    };
  }
  return null;
}

/** The number in E.164 (+...). Meant for requests that passed phoneFormatFailure; otherwise the trimmed input. */
export function normalizePhone(req: PhoneRequestLike): string {
  const market = getPhoneMarket(req.country);
  const parsed = market === undefined ? undefined : parseFor(market, req.phoneNumber ?? '');
  return parsed?.number ?? (req.phoneNumber ?? '').trim();
}

/**
 * The other spellings a phone-number prefix may have been stored under, for History's search: a check keeps the number
 * as it was typed (its identifier), local (`0802 123 4567`) or international (`+234 802 123 4567`), and the record
 * shows it in E.164. An international prefix (`+234802`, `00234802`) also reads as the local forms of each market whose
 * calling code it starts with (the national number, and with the trunk prefix 0 where the market dials one). Not the
 * other way round: a local prefix (`0802`) would read as a dozen international ones (every market's), a search's
 * cost many times over for what is most often an account number. A local spelling holds only for the market it is
 * local to (`country`): `+234 0231…` is not Ghana's `0231…`. Digits only, without the one given; empty for anything else.
 */
export function phonePrefixSpellings(raw: string): { digits: string; country?: string }[] {
  if (!looksInternational(raw)) return [];
  const typed = raw.replace(/\D/g, '');
  // 00 is the international prefix dialled from most countries: the number itself follows it.
  const doubleZero = raw.trim().startsWith('00');
  const digits = doubleZero ? typed.slice(2) : typed;
  const out: { digits: string; country?: string }[] = [];
  for (const m of dialling()) {
    if (!digits.startsWith(m.cc) || digits.length <= m.cc.length) continue;
    const national = digits.slice(m.cc.length);
    if (doubleZero) out.push({ digits, country: m.country });
    out.push({ digits: national, country: m.country });
    if (m.trunk) out.push({ digits: `0${national}`, country: m.country });
  }
  return out;
}

/**
 * Whether a search word is the start of an international phone number: `+` and digits, or `00` and a market's
 * calling code. A word of other digits starting `00` is most often an account number (`0012345678`), and stays one.
 */
export function looksInternational(raw: string): boolean {
  const t = raw.trim();
  if (/^\+\d/.test(t)) return true;
  if (!/^00\d/.test(t)) return false;
  const digits = t.replace(/\D/g, '').slice(2);
  return dialling().some((m) => digits.startsWith(m.cc));
}

/**
 * Each market's calling code, and whether its local numbers carry a trunk prefix 0 the international form drops.
 * Worked out on first use: libphonenumber-js loads lazily in the service (docs/performance.md, "Cold start").
 */
let dialIn: readonly { country: string; cc: string; trunk: boolean }[] | null = null;
function dialling(): readonly { country: string; cc: string; trunk: boolean }[] {
  dialIn ??= PHONE_MARKETS.map((m) => {
    const cc = getCountryCallingCode(m.country as CountryCode);
    const national = normalizePhone({ country: m.country, phoneNumber: m.sample.phoneNumber }).replace(/^\+/, '').slice(cc.length);
    const trunk = !national.startsWith('0') && normalizePhone({ country: m.country, phoneNumber: `0${national}` }) === `+${cc}${national}`;
    return { country: m.country, cc, trunk };
  });
  return dialIn;
}

/** The canonical spelling of a network code as listed for the market (e.g. 'mtn' → 'MTN'), or null. */
export function canonicalNetworkCode(country: string, networkCode: string): string | null {
  const market = getPhoneMarket(country);
  const code = networkCode.trim().toUpperCase();
  return market?.networkCodes.find((c) => c.toUpperCase() === code) ?? null;
}
