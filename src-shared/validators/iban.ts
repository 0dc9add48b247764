// IBAN validation (ISO 13616, mod-97) on top of ibantools, with reasons a person can act on.
import {
  electronicFormatIBAN,
  getCountrySpecifications,
  isValidIBAN,
  validateIBAN,
  ValidationErrorsIBAN,
} from 'ibantools';

export type IbanResult = { ok: true; iban: string } | { ok: false; reason: string };

export function validateIban(value: string, expectedCountry?: string): IbanResult {
  const iban = electronicFormatIBAN(value.trim()) ?? '';
  if (iban.length === 0) return { ok: false, reason: 'The IBAN is empty.' };
  if (!/^[A-Z0-9]+$/.test(iban)) {
    return { ok: false, reason: 'The IBAN may contain only letters, digits and spaces.' };
  }
  const country = iban.slice(0, 2);
  const expected = expectedCountry?.toUpperCase();
  if (expected !== undefined && country !== expected) {
    return { ok: false, reason: `The IBAN is for country ${country}, but the account country is ${expected}.` };
  }
  const spec = getCountrySpecifications()[country];
  if (spec?.chars == null) {
    return { ok: false, reason: `${country} is not a country that issues IBANs.` };
  }
  if (iban.length !== spec.chars) {
    return {
      ok: false,
      reason: `An IBAN for ${country} has ${spec.chars} characters; this one has ${iban.length}.`,
    };
  }
  if (isValidIBAN(iban)) return { ok: true, iban };
  const errors = validateIBAN(iban).errorCodes;
  if (errors.includes(ValidationErrorsIBAN.WrongBBANFormat)) {
    return { ok: false, reason: `The account part of the IBAN does not follow the ${country} format.` };
  }
  if (errors.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return { ok: false, reason: 'The national check digits inside the IBAN do not match.' };
  }
  return { ok: false, reason: 'The IBAN check digits do not match; the IBAN has a typing error.' };
}
