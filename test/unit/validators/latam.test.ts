import { describe, it, expect } from 'vitest';
import { clabeCheckDigit, validateClabe } from '../../../src-shared/validators/clabe';
import { validateCbu } from '../../../src-shared/validators/cbu';
import { validateCci } from '../../../src-shared/validators/cci';
import { cnpjCheckDigits, validateCnpj, validateCpf } from '../../../src-shared/validators/cpf-cnpj';
import { rutCheckChar, validateRut } from '../../../src-shared/validators/rut';
import { nitCheckDigit, validateColombianCc, validateNit } from '../../../src-shared/validators/nit';
import { validateEcuadorCedula, validateEcuadorRuc } from '../../../src-shared/validators/ecuador';

describe('CLABE (Mexico)', () => {
  // 002010077777777771 is the example of Wikipedia "CLABE" (Banamex, Aguascalientes) worked through Banxico's
  // 3-7-1 algorithm; 032180000118359719 is the example in Banxico's CLABE description (IXE, check digit 9).
  it.each(['002010077777777771', '032180000118359719'])('accepts %s', (c) => {
    expect(validateClabe(c)).toEqual({ ok: true, value: c });
  });
  it('computes the check digit', () => {
    expect(clabeCheckDigit('00201007777777777')).toBe(1);
  });
  it('rejects a changed digit and wrong lengths', () => {
    expect(validateClabe('002010077777777772').ok).toBe(false);
    expect(validateClabe('012010077777777771').ok).toBe(false);
    expect(validateClabe('00201007777777777').ok).toBe(false);
    expect(validateClabe('00201007777777777A').ok).toBe(false);
  });
});

describe('CBU (Argentina)', () => {
  // Vectors from python-stdnum stdnum/ar/cbu.py (after es.wikipedia "Clave Bancaria Uniforme").
  it('accepts 2850590940090418135201', () => {
    expect(validateCbu('2850590940090418135201').ok).toBe(true);
    expect(validateCbu('28505909 40090418135201').ok).toBe(true);
  });
  it('rejects a bad first-block check digit', () => {
    const r = validateCbu('2810590940090418135201');
    expect(r).toEqual({ ok: false, reason: 'The check digit of the CBU bank/branch block does not match.' });
  });
  it('rejects a bad second-block check digit and wrong lengths', () => {
    expect(validateCbu('2850590940090418135202').ok).toBe(false);
    expect(validateCbu('285059094009041813520').ok).toBe(false);
  });
});

describe('CCI (Peru)', () => {
  // Vectors built with the banks' own account-to-CCI conversions (BBVA: bank/branch weights 0,1,2,1,0,2,1,2 over
  // the 8-digit account prefix; BCP: savings type digit 1, 11-digit account) — a formulation independent of ours.
  it('accepts CCIs whose two check digits match (BBVA and BCP conversions)', () => {
    expect(validateCci('01112300010001234573').ok).toBe(true); // BBVA 0011-0123-01-00012345
    expect(validateCci('00219311234567890114').ok).toBe(true); // BCP savings 193-12345678901
    expect(validateCci('00219300123456789013').ok).toBe(true);
    expect(validateCci('002-193-001234567890-13').ok).toBe(true);
  });
  it('refuses a wrong check digit in either group, and wrong lengths', () => {
    expect(validateCci('01112300010001234583').ok).toBe(false);
    expect(validateCci('01112300010001234574').ok).toBe(false);
    expect(validateCci('00219300123456789012').ok).toBe(false);
    expect(validateCci('0021930012345678901').ok).toBe(false);
    expect(validateCci('0021930012345678901A').ok).toBe(false);
  });
});

describe('CPF and CNPJ (Brazil)', () => {
  // CPF vectors: python-stdnum stdnum/br/cpf.py (390.533.447-05 valid, 231.002.999-00 invalid) and the
  // pt.wikipedia "Cadastro de Pessoas Físicas" worked example 111.444.777-35.
  it('accepts valid CPFs with and without punctuation', () => {
    expect(validateCpf('390.533.447-05')).toEqual({ ok: true, value: '39053344705' });
    expect(validateCpf('11144477735').ok).toBe(true);
  });
  it('rejects bad CPFs', () => {
    expect(validateCpf('231.002.999-00').ok).toBe(false);
    expect(validateCpf('390.533.447-06').ok).toBe(false);
    expect(validateCpf('111.111.111-11').ok).toBe(false);
    expect(validateCpf('3905334470').ok).toBe(false);
  });
  // Numeric CNPJ: python-stdnum stdnum/br/cnpj.py. Alphanumeric CNPJ: the Receita Federal example
  // 12.ABC.345/01DE-35 from Nota Técnica COCAD/SUARA/RFB nº 49/2024.
  it('accepts numeric and alphanumeric CNPJs', () => {
    expect(validateCnpj('16.727.230/0001-97')).toEqual({ ok: true, value: '16727230000197' });
    expect(validateCnpj('12.ABC.345/01DE-35')).toEqual({ ok: true, value: '12ABC34501DE35' });
    expect(validateCnpj('12abc34501de35').ok).toBe(true);
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
  });
  it('rejects bad CNPJs', () => {
    expect(validateCnpj('16.727.230/0001-98').ok).toBe(false);
    expect(validateCnpj('12.ABC.345/01DE-36').ok).toBe(false);
    expect(validateCnpj('12.ABC.345/01DE-3A').ok).toBe(false);
    expect(validateCnpj('00.000.000/0000-00').ok).toBe(false);
    expect(validateCnpj('1672723000019').ok).toBe(false);
  });
});

describe('RUT (Chile)', () => {
  // python-stdnum stdnum/cl/rut.py: 76086428-5 and 12531909-2 valid, 12531909-3 invalid;
  // 12.345.678-5 is the common worked example of the mod-11 algorithm (es.wikipedia "Rol Único Tributario").
  it.each(['76086428-5', '12.531.909-2', '125319092', '12.345.678-5'])('accepts %s', (r) => {
    expect(validateRut(r).ok).toBe(true);
  });
  it('computes K and 0 check characters', () => {
    expect(rutCheckChar('76086428')).toBe('5');
    expect(['K', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']).toContain(rutCheckChar('1'));
    expect(validateRut(`1-${rutCheckChar('1')}`).ok).toBe(true);
    // Worked by hand: 6×2 = 12, 11 − (12 mod 11) = 10 → K; 4×2 + 1×3 = 11, 11 − 0 = 11 → 0.
    expect(rutCheckChar('6')).toBe('K');
    expect(rutCheckChar('14')).toBe('0');
    expect(validateRut('6-K').ok).toBe(true);
    expect(validateRut('6-k').ok).toBe(true);
    expect(validateRut('14-0').ok).toBe(true);
    expect(validateRut('6-0').ok).toBe(false);
  });
  it('rejects a wrong check character and bad shapes', () => {
    expect(validateRut('12531909-3').ok).toBe(false);
    expect(validateRut('76086A28-5').ok).toBe(false);
    expect(validateRut('123456789-5').ok).toBe(false);
  });
});

describe('NIT and CC (Colombia)', () => {
  // python-stdnum stdnum/co/nit.py: 213.123.432-1 and 2131234351 valid, 2131234350 invalid;
  // 800.197.268-4 is the DIAN's own NIT as printed on its documents.
  it.each(['213.123.432-1', '2131234351', '800.197.268-4', '8001972684'])('accepts NIT %s', (n) => {
    expect(validateNit(n).ok).toBe(true);
  });
  it('rejects a wrong check digit', () => {
    expect(validateNit('2131234350').ok).toBe(false);
    expect(validateNit('800.197.268-5').ok).toBe(false);
    expect(nitCheckDigit('800197268')).toBe(4);
  });
  it('checks CC length only', () => {
    expect(validateColombianCc('1020304050').ok).toBe(true);
    expect(validateColombianCc('12345').ok).toBe(false);
    expect(validateColombianCc('12345678901').ok).toBe(false);
  });
});

describe('Ecuador cédula and RUC', () => {
  // python-stdnum stdnum/ec/ci.py and stdnum/ec/ruc.py.
  it('accepts the cédula 171430710-3 and rejects a changed check digit', () => {
    expect(validateEcuadorCedula('171430710-3')).toEqual({ ok: true, value: '1714307103' });
    expect(validateEcuadorCedula('1714307104').ok).toBe(false);
  });
  it('rejects a bad province or third digit', () => {
    expect(validateEcuadorCedula('2514307103').ok).toBe(false);
    expect(validateEcuadorCedula('1764307103').ok).toBe(false);
  });
  it('accepts a private-company RUC and a natural-person RUC', () => {
    expect(validateEcuadorRuc('1792060346-001')).toEqual({ ok: true, value: '1792060346001' });
    expect(validateEcuadorRuc('1714307103001').ok).toBe(true);
  });
  it('rejects a bad RUC', () => {
    expect(validateEcuadorRuc('1763154690001').ok).toBe(false);
    expect(validateEcuadorRuc('1714307103000').ok).toBe(false);
    expect(validateEcuadorRuc('179206034601').ok).toBe(false);
  });
});
