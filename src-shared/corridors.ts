// The bank-account corridor table of service-interface §2.3 (plus ET, decisions §2) as data,
// and the two validation layers of decisions §2 driven by it. Pure: shared by service and console.
import {
  validateAba,
  validateBic,
  validateBsb,
  validateCbu,
  validateCci,
  validateClabe,
  validateCnpj,
  validateColombianCc,
  validateCpf,
  validateEcuadorCedula,
  validateEcuadorRuc,
  validateIban,
  validateIfsc,
  validateNit,
  validateNuban,
  validateRut,
  validateSortCode,
  validateUkAccountNumber,
  validateUnionPay,
  validateUscc,
  type Check,
  digitRangeProblem,
} from './validators/index';
import { isCurrencyCode } from './money';

export type CheckType = 'BANK_LOOKUP' | 'NAME_MATCH' | 'ACCOUNT_EXISTENCE' | 'FORMAT_CHECK';
export type AccountFormat = 'nuban10' | 'digits' | 'iban' | 'gb8' | 'unionpay' | 'clabe' | 'cbu' | 'cci' | 'generic';
export type BankCodeFormat = 'bank-code' | 'sort-code' | 'bic' | 'ifsc' | 'bsb' | 'aba' | 'bic-or-clearing' | 'none';

export interface IdentifierRule {
  types: string[];
  label: string;
}

export interface AccountNumberRule {
  format: AccountFormat;
  label: string;
  hint: string;
  /** Bounds for 'digits' and 'generic', counted after spaces and dashes are removed. */
  minLength?: number;
  maxLength?: number;
}

export interface BankCodeRule {
  required: boolean;
  format: BankCodeFormat;
  label: string;
  hint: string;
  /** For 'bank-code' and the clearing-code half of 'bic-or-clearing': a regular expression source. */
  pattern?: string;
}

export interface Corridor {
  country: string;
  name: string;
  group: string;
  checkType: CheckType;
  asyncAllowed: boolean;
  currency: string | null;
  accountNumber: AccountNumberRule;
  bankCode: BankCodeRule;
  accountNameRequired: boolean;
  accountHolderTypeRequired: boolean;
  identifier: IdentifierRule | null;
  /** CN only: BUSINESS accounts replace the account number, bank code and identifier rules. */
  business?: { accountNumber: AccountNumberRule; bankCode: BankCodeRule; identifier: IdentifierRule };
  /** A well-formed request body for placeholders and tests; identifiers/holder type where the corridor needs them. */
  sample: {
    accountNumber: string;
    bankCode?: string;
    accountName?: string;
    accountHolderType?: 'INDIVIDUAL' | 'BUSINESS';
    identifiers?: { type: string; value: string }[];
  };
}

const NOT_USED: BankCodeRule = { required: false, format: 'none', label: 'Bank code', hint: 'Not used for this country.' };

function bicRule(hint = 'The 8 or 11 character BIC/SWIFT code of the bank.'): BankCodeRule {
  return { required: true, format: 'bic', label: 'Bank BIC', hint };
}

function digitsAccount(minLength: number, maxLength: number, label = 'Account number'): AccountNumberRule {
  return { format: 'digits', label, hint: `${minLength} to ${maxLength} digits.`, minLength, maxLength };
}

const SEPA: ReadonlyArray<[string, string, string]> = [
  // [country, name, example IBAN from the SWIFT IBAN registry]
  ['AT', 'Austria', 'AT611904300234573201'],
  ['BE', 'Belgium', 'BE68539007547034'],
  ['BG', 'Bulgaria', 'BG80BNBG96611020345678'],
  ['HR', 'Croatia', 'HR1210010051863000160'],
  ['CY', 'Cyprus', 'CY17002001280000001200527600'],
  ['EE', 'Estonia', 'EE382200221020145685'],
  ['FI', 'Finland', 'FI2112345600000785'],
  ['FR', 'France', 'FR1420041010050500013M02606'],
  ['DE', 'Germany', 'DE89370400440532013000'],
  ['GR', 'Greece', 'GR1601101250000000012300695'],
  ['IE', 'Ireland', 'IE29AIBK93115212345678'],
  ['IT', 'Italy', 'IT60X0542811101000000123456'],
  ['LV', 'Latvia', 'LV80BANK0000435195001'],
  ['LT', 'Lithuania', 'LT121000011101001000'],
  ['LU', 'Luxembourg', 'LU280019400644750000'],
  ['MT', 'Malta', 'MT84MALT011000012345MTLCAST001S'],
  ['NL', 'Netherlands', 'NL91ABNA0417164300'],
  ['PT', 'Portugal', 'PT50000201231234567890154'],
  ['SK', 'Slovakia', 'SK3112000000198742637541'],
  ['SI', 'Slovenia', 'SI56263300012039086'],
  ['ES', 'Spain', 'ES9121000418450200051332'],
];

const sepaRows: Corridor[] = SEPA.map(([country, name, iban]) => ({
  country,
  name,
  group: 'SEPA',
  checkType: 'NAME_MATCH',
  asyncAllowed: false,
  currency: 'EUR',
  accountNumber: { format: 'iban', label: 'IBAN', hint: `A ${country} IBAN, starting with ${country}.` },
  bankCode: NOT_USED,
  accountNameRequired: true,
  accountHolderTypeRequired: false,
  identifier: null,
  sample: { accountNumber: iban, accountName: 'Jane Doe' },
}));

// Francophone West/Central Africa and Tanzania: "same role as for NG" (interface §2.3). Account numbers
// there are RIBs of up to 24 characters or IBAN-like strings, so only the character set and length are checked.
const AFRICAN_BANK_CODE: BankCodeRule = {
  required: true,
  format: 'bank-code',
  label: 'Bank code',
  hint: 'The bank or clearing code (2 to 11 letters or digits), or the bank BIC.',
  pattern: '^[A-Z0-9]{2,11}$',
};

const AFRICAN_GENERIC: ReadonlyArray<[string, string, string, string]> = [
  // [country, name, group, sample bank code]
  ['CI', "Côte d'Ivoire", 'Francophone Africa', 'CI008'],
  ['SN', 'Senegal', 'Francophone Africa', 'SN010'],
  ['CM', 'Cameroon', 'Francophone Africa', '10005'],
  ['BF', 'Burkina Faso', 'Francophone Africa', 'BF004'],
  ['ML', 'Mali', 'Francophone Africa', 'ML016'],
  ['BJ', 'Benin', 'Francophone Africa', 'BJ061'],
  ['TG', 'Togo', 'Francophone Africa', 'TG055'],
  ['TZ', 'Tanzania', 'East Africa', 'CORUTZTZ'],
];

const africanRows: Corridor[] = AFRICAN_GENERIC.map(([country, name, group, bankCode]) => ({
  country,
  name,
  group,
  checkType: 'BANK_LOOKUP',
  asyncAllowed: true,
  currency: null,
  accountNumber: {
    format: 'generic',
    label: 'Account number',
    hint: '5 to 34 letters or digits (RIB or local account number).',
    minLength: 5,
    maxLength: 34,
  },
  bankCode: AFRICAN_BANK_CODE,
  accountNameRequired: false,
  accountHolderTypeRequired: false,
  identifier: null,
  sample: { accountNumber: '01234567890123456789', bankCode },
}));

type NameMatchInit = Pick<Corridor, 'country' | 'name' | 'group' | 'accountNumber' | 'bankCode' | 'sample'> &
  Partial<Pick<Corridor, 'checkType' | 'currency' | 'identifier'>>;

function nameMatch(init: NameMatchInit): Corridor {
  return {
    checkType: 'NAME_MATCH',
    asyncAllowed: false,
    currency: null,
    identifier: null,
    accountNameRequired: true,
    accountHolderTypeRequired: false,
    ...init,
  };
}

const BIC_OR_CLEARING: BankCodeRule = {
  required: true,
  format: 'bic-or-clearing',
  label: 'Bank BIC or clearing code',
  hint: 'The bank BIC/SWIFT code, or its local clearing code (2 to 6 digits).',
  pattern: '^[0-9]{2,6}$',
};

const ASIA_BIC: ReadonlyArray<[string, string, AccountNumberRule, string, CheckType?]> = [
  // [country, name, account rule, sample BIC, check type]
  ['ID', 'Indonesia', digitsAccount(6, 20), 'BMRIIDJA'],
  ['VN', 'Vietnam', digitsAccount(6, 19), 'BFTVVNVX'],
  ['NP', 'Nepal', digitsAccount(8, 20), 'NARBNPKA'],
  // Pakistani accounts are often quoted as a 24-character IBAN, so letters are allowed.
  [
    'PK',
    'Pakistan',
    { format: 'generic', label: 'Account number or IBAN', hint: '6 to 24 letters or digits (account number or PK IBAN).', minLength: 6, maxLength: 24 },
    'HABBPKKA',
  ],
  ['KR', 'South Korea', digitsAccount(10, 14), 'KOEXKRSE'],
  ['BD', 'Bangladesh', digitsAccount(10, 17), 'BSONBDDH'],
  ['MY', 'Malaysia', digitsAccount(8, 17), 'MBBEMYKL'],
  ['TH', 'Thailand', digitsAccount(10, 12), 'BKKBTHBK', 'ACCOUNT_EXISTENCE'],
  ['PH', 'Philippines', digitsAccount(6, 16), 'BOPIPHMM', 'FORMAT_CHECK'],
];

const asiaRows: Corridor[] = ASIA_BIC.map(([country, name, accountNumber, bic, checkType]) =>
  nameMatch({
    country,
    name,
    group: 'Asia',
    checkType: checkType ?? 'NAME_MATCH',
    accountNumber,
    bankCode: bicRule(),
    sample: { accountNumber: '1234567890', bankCode: bic, accountName: 'Jane Doe' },
  }),
);

export const CORRIDORS: readonly Corridor[] = Object.freeze([
  {
    country: 'NG',
    name: 'Nigeria',
    group: 'Nigeria',
    checkType: 'BANK_LOOKUP',
    asyncAllowed: true,
    currency: null,
    accountNumber: { format: 'nuban10', label: 'Account number (NUBAN)', hint: 'Exactly 10 digits.' },
    // CBN codes: 3 digits for deposit money banks, 5-6 for other institutions.
    bankCode: { required: true, format: 'bank-code', label: 'Bank code', hint: 'The CBN bank code, e.g. 058.', pattern: '^[0-9]{3,6}$' },
    accountNameRequired: false,
    accountHolderTypeRequired: false,
    identifier: null,
    // CBN NUBAN proposal (2010) worked example: bank 011, serial 000001457, check digit 9.
    sample: { accountNumber: '0000014579', bankCode: '011' },
  },
  {
    country: 'ET',
    name: 'Ethiopia',
    group: 'East Africa',
    checkType: 'BANK_LOOKUP',
    asyncAllowed: true,
    currency: null,
    accountNumber: digitsAccount(10, 16),
    bankCode: { ...AFRICAN_BANK_CODE, hint: 'The bank code or BIC, e.g. CBETETAA.' },
    accountNameRequired: false,
    accountHolderTypeRequired: false,
    identifier: null,
    sample: { accountNumber: '1000123456789', bankCode: 'CBETETAA' },
  },
  ...africanRows,
  nameMatch({
    country: 'GB',
    name: 'United Kingdom',
    group: 'United Kingdom',
    accountNumber: { format: 'gb8', label: 'Account number', hint: 'Exactly 8 digits.' },
    bankCode: { required: true, format: 'sort-code', label: 'Sort code', hint: '6 digits, e.g. 60-16-13.' },
    // From the SWIFT IBAN registry example GB29 NWBK 6016 1331 9268 19.
    sample: { accountNumber: '31926819', bankCode: '601613', accountName: 'Jane Doe' },
  }),
  {
    ...nameMatch({
      country: 'CN',
      name: 'China',
      group: 'Asia',
      accountNumber: { format: 'unionpay', label: 'UnionPay card number', hint: '16 to 19 digits starting with 62.' },
      bankCode: { ...NOT_USED, hint: 'Not used for individual accounts.' },
      // Stripe's documented UnionPay test card number.
      sample: { accountNumber: '6200000000000005', accountName: 'Wang Fang', accountHolderType: 'INDIVIDUAL' },
    }),
    accountHolderTypeRequired: true,
    business: {
      accountNumber: digitsAccount(8, 30, 'Business account number'),
      bankCode: bicRule('The BIC/SWIFT code of the Chinese bank holding the account.'),
      identifier: { types: ['BUSINESS_REGISTRATION'], label: 'Unified Social Credit Code (18 characters)' },
    },
  },
  ...sepaRows,
  nameMatch({
    country: 'AE',
    name: 'United Arab Emirates',
    group: 'Middle East',
    currency: 'AED',
    accountNumber: { format: 'iban', label: 'IBAN', hint: 'An AE IBAN of 23 characters.' },
    bankCode: NOT_USED,
    sample: { accountNumber: 'AE070331234567890123456', accountName: 'Jane Doe' },
  }),
  nameMatch({
    country: 'AU',
    name: 'Australia',
    group: 'Oceania',
    currency: 'AUD',
    accountNumber: digitsAccount(5, 9),
    bankCode: { required: true, format: 'bsb', label: 'BSB', hint: '6 digits, e.g. 062-000.' },
    sample: { accountNumber: '12345678', bankCode: '062000', accountName: 'Jane Doe' },
  }),
  nameMatch({
    country: 'US',
    name: 'United States',
    group: 'North America',
    currency: 'USD',
    accountNumber: digitsAccount(4, 17),
    bankCode: { required: true, format: 'aba', label: 'ABA routing number', hint: '9 digits, e.g. 021000021.' },
    sample: { accountNumber: '000123456789', bankCode: '021000021', accountName: 'Jane Doe' },
  }),
  // BR, MX, AR, PE: "routing embedded in the IBAN/CLABE/CBU/CCI" (interface §2.3), so no bankCode.
  nameMatch({
    country: 'BR',
    name: 'Brazil',
    group: 'Latin America',
    accountNumber: { format: 'iban', label: 'IBAN', hint: 'A BR IBAN of 29 characters.' },
    bankCode: NOT_USED,
    identifier: { types: ['CPF', 'CNPJ'], label: 'CPF or CNPJ' },
    // SWIFT IBAN registry example; CPF from python-stdnum's documented vector.
    sample: {
      accountNumber: 'BR1800360305000010009795493C1',
      accountName: 'Maria Silva',
      identifiers: [{ type: 'CPF', value: '390.533.447-05' }],
    },
  }),
  nameMatch({
    country: 'MX',
    name: 'Mexico',
    group: 'Latin America',
    accountNumber: { format: 'clabe', label: 'CLABE', hint: '18 digits.' },
    bankCode: NOT_USED,
    sample: { accountNumber: '002010077777777771', accountName: 'Juan Pérez' },
  }),
  nameMatch({
    country: 'AR',
    name: 'Argentina',
    group: 'Latin America',
    accountNumber: { format: 'cbu', label: 'CBU', hint: '22 digits.' },
    bankCode: NOT_USED,
    sample: { accountNumber: '2850590940090418135201', accountName: 'Juan Pérez' },
  }),
  nameMatch({
    country: 'PE',
    name: 'Peru',
    group: 'Latin America',
    accountNumber: { format: 'cci', label: 'CCI', hint: '20 digits (Código de Cuenta Interbancario).' },
    bankCode: NOT_USED,
    sample: { accountNumber: '00219300123456789013', accountName: 'Juan Pérez' },
  }),
  nameMatch({
    country: 'UY',
    name: 'Uruguay',
    group: 'Latin America',
    accountNumber: digitsAccount(6, 14),
    bankCode: BIC_OR_CLEARING,
    sample: { accountNumber: '001234567', bankCode: 'BROUUYMM', accountName: 'Juan Pérez' },
  }),
  nameMatch({
    country: 'CL',
    name: 'Chile',
    group: 'Latin America',
    accountNumber: digitsAccount(6, 20),
    bankCode: BIC_OR_CLEARING,
    identifier: { types: ['RUT'], label: 'RUT' },
    sample: {
      accountNumber: '00123456789',
      bankCode: '001',
      accountName: 'Juan Pérez',
      identifiers: [{ type: 'RUT', value: '76.086.428-5' }],
    },
  }),
  nameMatch({
    country: 'CO',
    name: 'Colombia',
    group: 'Latin America',
    accountNumber: digitsAccount(6, 20),
    bankCode: BIC_OR_CLEARING,
    identifier: { types: ['CC', 'NIT'], label: 'CC (cédula) or NIT' },
    sample: {
      accountNumber: '12345678901',
      bankCode: 'COLOCOBM',
      accountName: 'Juan Pérez',
      identifiers: [{ type: 'NIT', value: '800.197.268-4' }],
    },
  }),
  nameMatch({
    country: 'EC',
    name: 'Ecuador',
    group: 'Latin America',
    accountNumber: digitsAccount(6, 20),
    bankCode: BIC_OR_CLEARING,
    identifier: { types: ['CC', 'RUC'], label: 'CC (cédula) or RUC' },
    sample: {
      accountNumber: '2100123456',
      bankCode: 'PICHECEQ',
      accountName: 'Juan Pérez',
      identifiers: [{ type: 'CC', value: '1714307103' }],
    },
  }),
  nameMatch({
    country: 'IN',
    name: 'India',
    group: 'Asia',
    accountNumber: digitsAccount(9, 18),
    bankCode: { required: true, format: 'ifsc', label: 'IFSC', hint: '11 characters, e.g. SBIN0000691.' },
    sample: { accountNumber: '123456789012', bankCode: 'SBIN0000691', accountName: 'Priya Sharma' },
  }),
  ...asiaRows,
] satisfies Corridor[]);

const BY_COUNTRY = new Map(CORRIDORS.map((c) => [c.country, c]));

export function getCorridor(country: string): Corridor | undefined {
  return BY_COUNTRY.get(country.trim().toUpperCase());
}

export const SUPPORTED_ACCOUNT_COUNTRIES: readonly string[] = Object.freeze(CORRIDORS.map((c) => c.country));

/** The rules that apply to one request: CN BUSINESS swaps in its own account, bank and identifier rules. */
export function effectiveRules(
  corridor: Corridor,
  accountHolderType?: 'INDIVIDUAL' | 'BUSINESS',
): { accountNumber: AccountNumberRule; bankCode: BankCodeRule; identifier: IdentifierRule | null } {
  if (accountHolderType === 'BUSINESS' && corridor.business) return corridor.business;
  return { accountNumber: corridor.accountNumber, bankCode: corridor.bankCode, identifier: corridor.identifier };
}

export interface FieldIssue {
  field: string;
  /** The API's wording: names the field by its JSON name (decisions §2 details). */
  message: string;
}

/**
 * A layer-1 issue in a form's own words (issue 13 §5): when the input it is about is empty, "<label> is
 * required." (never `accountNumber (Account number (NUBAN)) is required.`); anything else keeps the rule's message.
 */
export function formIssueMessage(issue: FieldIssue, label: string | undefined, value: string | undefined): string {
  return label && (value === undefined || value.trim() === '') ? `${label} is required.` : issue.message;
}

export interface AccountRequestLike {
  country: string;
  accountNumber: string;
  bankCode?: string;
  accountName?: string;
  accountHolderType?: 'INDIVIDUAL' | 'BUSINESS';
  identifiers?: { type: string; value: string }[];
  currency?: string;
  mode?: 'async';
}

function blank(value: string | undefined | null): boolean {
  return value === undefined || value === null || value.trim() === '';
}

function findIdentifier(req: AccountRequestLike, types: string[]): { type: string; value: string } | undefined {
  const wanted = new Set(types.map((t) => t.toUpperCase()));
  return req.identifiers?.find((i) => wanted.has(i.type.trim().toUpperCase()) && !blank(i.value));
}

/**
 * Layer 1 (decisions §2, HTTP 422, nothing recorded). An issue on field 'country' means the corridor
 * is unsupported (UNSUPPORTED_CORRIDOR); one on field 'mode' means ASYNC_NOT_SUPPORTED; the rest are
 * VALIDATION_ERROR details.
 */
export function accountRequestIssues(req: AccountRequestLike): FieldIssue[] {
  const country = typeof req.country === 'string' ? req.country : '';
  const corridor = getCorridor(country);
  if (corridor === undefined) {
    return [
      {
        field: 'country',
        message: blank(country)
          ? 'country is required.'
          : `Bank account verification is not available for country ${country.trim().toUpperCase()}.`,
      },
    ];
  }
  const issues: FieldIssue[] = [];
  if (corridor.accountHolderTypeRequired && req.accountHolderType === undefined) {
    issues.push({ field: 'accountHolderType', message: `accountHolderType (INDIVIDUAL or BUSINESS) is required for ${corridor.country}.` });
  }
  const rules = effectiveRules(corridor, req.accountHolderType);
  if (blank(req.accountNumber)) {
    issues.push({ field: 'accountNumber', message: `accountNumber (${rules.accountNumber.label}) is required.` });
  }
  if (rules.bankCode.required && blank(req.bankCode)) {
    issues.push({ field: 'bankCode', message: `bankCode (${rules.bankCode.label}) is required for ${corridor.country}.` });
  }
  if (corridor.accountNameRequired && blank(req.accountName)) {
    // Only a name-match corridor compares it; TH (an existence check) and PH (a format check) require it but match none.
    const why = corridor.checkType === 'NAME_MATCH' ? 'it is the name to match' : "the corridor's upstream requires it, though it matches no name";
    issues.push({ field: 'accountName', message: `accountName is required for ${corridor.country}: ${why}.` });
  }
  if (rules.identifier !== null && findIdentifier(req, rules.identifier.types) === undefined) {
    issues.push({
      field: 'identifiers',
      message: `identifiers must include a ${rules.identifier.label} (type ${rules.identifier.types.join(' or ')}) for ${corridor.country}.`,
    });
  }
  if (req.currency !== undefined) {
    const currency = req.currency.trim().toUpperCase();
    if (corridor.currency !== null && currency !== corridor.currency) {
      issues.push({ field: 'currency', message: `Only ${corridor.currency} accounts can be verified in ${corridor.country}.` });
    } else if (!isCurrencyCode(currency)) {
      issues.push({ field: 'currency', message: 'currency must be a 3-letter ISO 4217 code.' });
    }
  }
  if (req.mode === 'async' && !corridor.asyncAllowed) {
    issues.push({ field: 'mode', message: `${corridor.country} verifications are synchronous only; omit mode.` });
  }
  return issues;
}

export type FormatFailure = {
  code: 'INVALID_ACCOUNT_NUMBER' | 'INVALID_BANK_CODE' | 'VERIFICATION_FAILED';
  message: string;
};

function checkAccountNumber(rule: AccountNumberRule, value: string, country: string): Check {
  const compacted = value.trim().replace(/[\s-]/g, '');
  const min = rule.minLength ?? 1;
  const max = rule.maxLength ?? 34;
  switch (rule.format) {
    case 'nuban10':
      return validateNuban(value);
    case 'iban': {
      const r = validateIban(value, country);
      return r.ok ? { ok: true, value: r.iban } : r;
    }
    case 'gb8':
      return validateUkAccountNumber(value);
    case 'unionpay':
      return validateUnionPay(value);
    case 'clabe':
      return validateClabe(value);
    case 'cbu':
      return validateCbu(value);
    case 'cci':
      return validateCci(value);
    case 'digits':
      {
        const problem = digitRangeProblem(compacted, min, max, `The ${rule.label.toLowerCase()}`);
        if (problem) return { ok: false, reason: problem };
      }
      return { ok: true, value: compacted };
    case 'generic':
      if (!/^[A-Za-z0-9]+$/.test(compacted) || compacted.length < min || compacted.length > max) {
        return { ok: false, reason: `The ${rule.label.toLowerCase()} must be ${min} to ${max} letters or digits.` };
      }
      return { ok: true, value: compacted.toUpperCase() };
  }
}

function checkBankCode(rule: BankCodeRule, value: string, country: string): Check {
  const v = value.trim().toUpperCase();
  switch (rule.format) {
    case 'none':
      return { ok: true, value: v };
    case 'sort-code':
      return validateSortCode(value);
    case 'bic':
      return validateBic(value, country);
    case 'ifsc':
      return validateIfsc(value);
    case 'bsb':
      return validateBsb(value);
    case 'aba':
      return validateAba(value);
    case 'bank-code':
      if (rule.pattern !== undefined && !new RegExp(rule.pattern).test(v)) {
        return { ok: false, reason: `The bank code ${value.trim()} is not in the expected format. ${rule.hint}` };
      }
      return { ok: true, value: v };
    case 'bic-or-clearing':
      if (rule.pattern !== undefined && new RegExp(rule.pattern).test(v)) return { ok: true, value: v };
      if (/^[A-Z]/.test(v)) return validateBic(value, country);
      return { ok: false, reason: `The bank code must be a BIC or a local clearing code. ${rule.hint}` };
  }
}

const IDENTIFIER_CHECKS: Record<string, (value: string, country: string) => Check> = {
  CPF: (v) => validateCpf(v),
  CNPJ: (v) => validateCnpj(v),
  RUT: (v) => validateRut(v),
  NIT: (v) => validateNit(v),
  RUC: (v) => validateEcuadorRuc(v),
  CC: (v, country) => (country === 'EC' ? validateEcuadorCedula(v) : validateColombianCc(v)),
  BUSINESS_REGISTRATION: (v) => validateUscc(v),
};

const IDENTIFIER_NAMES: Record<string, string> = {
  CPF: 'CPF',
  CNPJ: 'CNPJ',
  RUT: 'RUT',
  NIT: 'NIT',
  RUC: 'RUC',
  CC: 'cédula (CC)',
  BUSINESS_REGISTRATION: 'Unified Social Credit Code',
};

/**
 * Layer 2 (decisions §2, HTTP 200 with a recorded `failed` verification, never charged). Runs after
 * layer 1 has passed; returns the first failure in the order account number, bank code, identifiers.
 */
export function accountFormatFailure(req: AccountRequestLike): FormatFailure | null {
  const corridor = getCorridor(req.country);
  if (corridor === undefined) return null;
  const rules = effectiveRules(corridor, req.accountHolderType);

  const account = checkAccountNumber(rules.accountNumber, req.accountNumber ?? '', corridor.country);
  if (!account.ok) return { code: 'INVALID_ACCOUNT_NUMBER', message: account.reason };

  if (!blank(req.bankCode) && rules.bankCode.format !== 'none') {
    const bank = checkBankCode(rules.bankCode, req.bankCode ?? '', corridor.country);
    if (!bank.ok) return { code: 'INVALID_BANK_CODE', message: bank.reason };
  }

  if (rules.identifier !== null) {
    const allowed = new Set(rules.identifier.types.map((t) => t.toUpperCase()));
    for (const id of req.identifiers ?? []) {
      const type = id.type.trim().toUpperCase();
      const check = IDENTIFIER_CHECKS[type];
      if (!allowed.has(type) || check === undefined) continue;
      const result = check(id.value, corridor.country);
      if (!result.ok) {
        return {
          code: 'VERIFICATION_FAILED',
          message: `The ${IDENTIFIER_NAMES[type] ?? type} in identifiers is not valid: ${result.reason}`,
        };
      }
    }
  }
  return null;
}
