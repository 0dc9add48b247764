import { describe, it, expect } from 'vitest';
import { validateIban } from '../../../src-shared/validators/iban';

// Example IBANs from the SWIFT IBAN Registry (release 99) and Wikipedia's "International Bank Account Number".
const REGISTRY_EXAMPLES = [
  'GB29NWBK60161331926819',
  'DE89370400440532013000',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
  'BE68539007547034',
  'MT84MALT011000012345MTLCAST001S',
  'AE070331234567890123456',
  'BR1800360305000010009795493C1',
];

describe('validateIban', () => {
  it.each(REGISTRY_EXAMPLES)('accepts the registry example %s', (iban) => {
    expect(validateIban(iban)).toEqual({ ok: true, iban });
  });

  it('accepts the paper format with spaces and lower case, and normalises it', () => {
    expect(validateIban('gb29 nwbk 6016 1331 9268 19')).toEqual({ ok: true, iban: 'GB29NWBK60161331926819' });
  });

  it('rejects a wrong check digit', () => {
    const r = validateIban('GB28NWBK60161331926819');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/check digits/);
  });

  it('rejects a transposition of two characters (mod-97 catches it)', () => {
    expect(validateIban('DE89370400440532031000').ok).toBe(false);
  });

  it('rejects the wrong length for the country and says what length is expected', () => {
    const r = validateIban('DE8937040044053201300');
    expect(r).toEqual({ ok: false, reason: 'An IBAN for DE has 22 characters; this one has 21.' });
  });

  it('rejects an IBAN for a different country than expected', () => {
    const r = validateIban('FR1420041010050500013M02606', 'DE');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/FR.*DE/);
    expect(validateIban('DE89370400440532013000', 'de').ok).toBe(true);
  });

  it('rejects punctuation and unknown countries', () => {
    expect(validateIban('GB29-NWBK!60161331926819').ok).toBe(false);
    expect(validateIban('US12345678901234567890').ok).toBe(false);
    expect(validateIban('').ok).toBe(false);
  });
});
