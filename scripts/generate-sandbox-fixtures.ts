// Generates resources/sandbox/fixtures.json, the sandbox catalogue (decisions §10), from the corridor, phone-market
// and identity tables, and checks every fixture against the layer-2 validators so a documented number can never be
// rejected for its format by mistake. Run: npx tsx scripts/generate-sandbox-fixtures.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountFormatFailure, accountRequestIssues, CORRIDORS, type Corridor } from '../src-shared/corridors';
import { FACE_MATCH_MESSAGES, VERIFICATION_ERRORS } from '../src-shared/errors';
import { faceFormatFailure, identityFormatFailure, identityRequestIssues } from '../src-shared/identity-rules';
import { normalizePhone, PHONE_MARKETS, phoneFormatFailure, phoneRequestIssues } from '../src-shared/phone-markets';
import { nubanCheckDigit } from '../src-shared/validators/nuban';
import { norm, OTHER_NETWORK_MESSAGE, WRONG_BANK_MESSAGE } from '../src-main/providers/sandbox/fixtures';

type Kind = 'account' | 'phone' | 'identity' | 'face' | 'address';
interface Fixture {
  kind: Kind;
  country: string;
  description: string;
  request: Record<string, unknown>;
  expected: { status: 'success' | 'failed' | 'error'; errorCode?: string; fields?: Record<string, unknown> };
}

const out: Fixture[] = [];
const add = (f: Fixture) => out.push(f);

/** The codes every kind can produce (interface §7.3 "all"), with the account numbers' status. */
const NON_ANSWERS = [
  ['VERIFICATION_ERROR', 'Unexpected upstream error (transient, not charged)'],
  ['VERIFICATION_TIMEOUT', 'Upstream did not answer in time (transient, not charged)'],
  ['VERIFICATION_UNAVAILABLE', 'Upstream temporarily unavailable (transient, not charged)'],
  ['VERIFICATION_RATE_LIMITED', 'Upstream rate limit hit (transient, not charged)'],
  ['VERIFICATION_CANCELLED', 'Check cancelled before completion (transient, not charged)'],
  ['INCONCLUSIVE', 'No definitive answer (INCONCLUSIVE, never charged, retryable)'],
] as const;

const NAME_MISMATCH = 'The account name does not match the name held by the bank.';

// ---------- bank accounts ----------
const BANKS: Record<string, string> = {
  ET: 'Commercial Bank of Ethiopia', CI: 'Société Générale Côte d’Ivoire', SN: 'CBAO Groupe Attijariwafa', CM: 'Afriland First Bank',
  BF: 'Coris Bank International', ML: 'Banque Malienne de Solidarité', BJ: 'Ecobank Bénin', TG: 'Orabank Togo', TZ: 'CRDB Bank',
  GB: 'National Westminster Bank', CN: 'Bank of China', AE: 'Emirates NBD', AU: 'Commonwealth Bank of Australia',
  US: 'JPMorgan Chase Bank', BR: 'Caixa Econômica Federal', MX: 'Banamex', AR: 'Banco Macro', PE: 'Banco de Crédito del Perú',
  UY: 'Banco República', CL: 'Banco de Chile', CO: 'Bancolombia', EC: 'Banco Pichincha', IN: 'State Bank of India',
  ID: 'Bank Mandiri', VN: 'Vietcombank', NP: 'Nabil Bank', PK: 'Habib Bank', KR: 'Korea Exchange Bank', BD: 'Sonali Bank',
  MY: 'Maybank', TH: 'Bangkok Bank', PH: 'Bank of the Philippine Islands',
};
const HOLDERS: Record<string, string> = {
  ET: 'ABEBE BIKILA', CI: 'KOUASSI YAO', SN: 'AMINATA DIOP', CM: 'PAUL BIYA NGONO', BF: 'SALIF OUEDRAOGO', ML: 'FATOUMATA KEITA',
  BJ: 'KOFFI AHOUANDJINOU', TG: 'AKOSSIWA MENSAH', TZ: 'NEEMA MWAKYUSA',
};

function bankName(c: Corridor): string {
  return BANKS[c.country] ?? `${c.name} Sandbox Bank`;
}

/** A second account number of the same format as the sample, for the "not found" fixture. */
function otherAccount(c: Corridor): string {
  const s = c.sample.accountNumber;
  if (c.country === 'NG') return '0000000000';
  return s.slice(0, -4) + '9999';
}

for (const c of CORRIDORS) {
  const base = { country: c.country, ...c.sample } as Record<string, unknown>;
  if (c.country !== 'NG') {
    if (c.checkType === 'BANK_LOOKUP') {
      add({ kind: 'account', country: c.country, description: "Active account: the bank lookup returns the holder's name",
        request: base, expected: { status: 'success', fields: { accountName: HOLDERS[c.country] ?? 'SANDBOX HOLDER', bankName: bankName(c) } } });
    } else {
      const what = c.checkType === 'NAME_MATCH' ? 'the name matches the account holder' : c.checkType === 'ACCOUNT_EXISTENCE' ? 'the account exists' : 'the account number is well formed';
      add({ kind: 'account', country: c.country, description: `Success: ${what}`, request: base,
        // Only a name match confirms (echoes) the name given; an existence or format check compares none.
        expected: { status: 'success', fields: { ...(c.checkType === 'NAME_MATCH' ? { accountName: c.sample.accountName } : {}), bankName: bankName(c) } } });
    }
  }
  if (c.checkType === 'NAME_MATCH') {
    add({ kind: 'account', country: c.country, description: 'Name mismatch: the account exists but the name is not the holder’s (charged in live)',
      request: { ...base, accountName: 'John Smith' }, expected: { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: NAME_MISMATCH } } });
  }
  // Name-match corridors already have their failed fixture; checksummed formats (IBAN, CLABE, UnionPay...) make a
  // made-up second number awkward, and any unknown number answers ACCOUNT_NOT_FOUND anyway (docs/sandbox.md).
  // A format-check corridor (PH) checks no bank: a well-formed number is never "not found" there.
  if (c.country !== 'NG' && c.checkType !== 'FORMAT_CHECK' && (c.checkType !== 'NAME_MATCH' || ['digits', 'gb8', 'generic'].includes(c.accountNumber.format))) {
    add({ kind: 'account', country: c.country, description: 'Account not found at the bank (charged in live)',
      request: { ...base, accountNumber: otherAccount(c) }, expected: { status: 'failed', errorCode: 'ACCOUNT_NOT_FOUND' } });
  }
}

// NG keeps its historical fixtures (numbers are documented to users), then gains the remaining codes.
const NG_BANK = '058';
const ng = (accountNumber: string, description: string, expected: Fixture['expected'], bankCode = NG_BANK) =>
  add({ kind: 'account', country: 'NG', description, request: { country: 'NG', accountNumber, bankCode }, expected });
ng('0123456789', "Active account: the bank lookup returns the holder's name", { status: 'success', fields: { accountName: 'ADAEZE OKAFOR', bankName: 'Guaranty Trust Bank' } });
ng('0690000031', 'Second active account at another bank', { status: 'success', fields: { accountName: 'CHIDI NWOSU', bankName: 'Access Bank' } }, '044');
{
  // A NUBAN with a correct CBN check digit (bank 011, serial 000001457: the CBN worked example).
  const serial = '000001457';
  ng(serial + String(nubanCheckDigit('011', serial)), 'CBN worked-example NUBAN at First Bank', { status: 'success', fields: { accountName: 'EMEKA ADEYEMI', bankName: 'First Bank of Nigeria' } }, '011');
}
ng('0000000000', 'Account not found at the bank (charged in live)', { status: 'failed', errorCode: 'ACCOUNT_NOT_FOUND' });
ng('0111111111', 'Account closed, dormant or blocked (charged in live)', { status: 'failed', errorCode: 'ACCOUNT_INACTIVE' });
ng('012345678', 'Account number with 9 digits: format failure, never charged', { status: 'failed', errorCode: 'INVALID_ACCOUNT_NUMBER' });
ng('0123456789', 'Bank code that is not a CBN code: format failure, never charged', { status: 'failed', errorCode: 'INVALID_BANK_CODE' }, 'GTB');
NON_ANSWERS.forEach(([code, description], i) => {
  const n = code === 'VERIFICATION_TIMEOUT' ? '0999999991' : code === 'INCONCLUSIVE' ? '0999999995' : `099999999${[2, 3, 4, 6, 7][i] ?? 8}`;
  ng(n, description, { status: 'error', errorCode: code });
});

// Ethiopia (interface §7.3 rule 6): not found and inactive are answers (charged); a silent bank is INCONCLUSIVE.
const et = (accountNumber: string, description: string, expected: Fixture['expected']) =>
  add({ kind: 'account', country: 'ET', description, request: { country: 'ET', accountNumber, bankCode: 'CBETETAA' }, expected });
et('1000111111111', 'Account closed, dormant or blocked (charged in live)', { status: 'failed', errorCode: 'ACCOUNT_INACTIVE' });
et('1000555555555', 'The bank did not answer: INCONCLUSIVE (not charged)', { status: 'error', errorCode: 'INCONCLUSIVE' });

// Format failures of other corridors (checksums count as format, decisions §2). PH, a format-check corridor, fails
// only on format: its failed fixture is one.
add({ kind: 'account', country: 'PH', description: 'Account number of 5 digits: format failure, never charged',
  request: { country: 'PH', accountNumber: '12345', bankCode: 'BOPIPHMM', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'INVALID_ACCOUNT_NUMBER' } });
add({ kind: 'account', country: 'GB', description: 'Sort code of 5 digits: format failure, never charged',
  request: { country: 'GB', accountNumber: '31926819', bankCode: '60161', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'INVALID_BANK_CODE' } });
add({ kind: 'account', country: 'GB', description: 'Account number of 7 digits: format failure, never charged',
  request: { country: 'GB', accountNumber: '3192681', bankCode: '601613', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'INVALID_ACCOUNT_NUMBER' } });
add({ kind: 'account', country: 'DE', description: 'IBAN with a wrong mod-97 check: format failure, never charged',
  request: { country: 'DE', accountNumber: 'DE89370400440532013001', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'INVALID_ACCOUNT_NUMBER' } });
add({ kind: 'account', country: 'US', description: 'ABA routing number failing its 3-7-1 checksum: format failure, never charged',
  request: { country: 'US', accountNumber: '000123456789', bankCode: '021000022', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'INVALID_BANK_CODE' } });
add({ kind: 'account', country: 'GB', description: 'Account closed at the bank (charged in live)',
  request: { country: 'GB', accountNumber: '11111111', bankCode: '601613', accountName: 'Jane Doe' }, expected: { status: 'failed', errorCode: 'ACCOUNT_INACTIVE' } });
add({ kind: 'account', country: 'CN', description: 'Business account: name matches (USCC from python-stdnum)',
  request: { country: 'CN', accountNumber: '12345678901234', bankCode: 'BKCHCNBJ', accountName: 'Acme Trading Co Ltd', accountHolderType: 'BUSINESS',
    identifiers: [{ type: 'BUSINESS_REGISTRATION', value: '91110000600037341L' }] },
  expected: { status: 'success', fields: { accountName: 'Acme Trading Co Ltd', bankName: 'Bank of China' } } });

// Right account number, wrong bank (issue 18): a fixture matches on every identifying field, so a listed number sent
// with another well-formed bank code is not found there (charged in live, like any not-found answer).
const WRONG_BANK: Record<string, string> = { NG: '044', US: '026009593', IN: 'HDFC0000001', AU: '033000', GB: '200000' };
for (const [country, bankCode] of Object.entries(WRONG_BANK)) {
  const corridor = CORRIDORS.find((c) => c.country === country)!;
  const sample = country === 'NG' ? { accountNumber: '0123456789', bankCode: NG_BANK } : corridor.sample;
  if (norm(sample.bankCode) === norm(bankCode)) throw new Error(`${country}: the wrong bank must differ from the fixture's`);
  add({ kind: 'account', country, description: `Right account number, wrong bank: listed at ${sample.bankCode}, sent with ${bankCode} (charged in live)`,
    request: { country, ...sample, bankCode }, expected: { status: 'failed', errorCode: 'ACCOUNT_NOT_FOUND', fields: { message: WRONG_BANK_MESSAGE } } });
}

// ---------- phone ----------
/** Valid numbers of the market derived from its sample by changing the last digits (libphonenumber decides). */
function phoneVariants(country: string, sample: string, count: number, avoid: Set<string>): string[] {
  const digits = sample.replace(/\D/g, '');
  const found: string[] = [];
  for (let i = 0; i < 10_000 && found.length < count; i++) {
    const tail = String(9999 - i).padStart(4, '0');
    const candidate = digits.slice(0, -4) + tail;
    const req = { country, phoneNumber: candidate };
    // Only the number matters here; a missing networkCode is reported after it.
    if (phoneFormatFailure(req)?.code === 'INVALID_PHONE_NUMBER') continue;
    const e164 = normalizePhone(req);
    if (avoid.has(e164)) continue;
    avoid.add(e164);
    found.push(candidate);
  }
  if (found.length < count) throw new Error(`not enough valid ${country} numbers`);
  return found;
}

const PHONE_NAMES: Record<string, string> = {
  NG: 'ADAEZE OKAFOR', GH: 'KWAME MENSAH', KE: 'WANJIRU KAMAU', CI: 'KOUASSI YAO', SN: 'AMINATA DIOP', CM: 'JEAN ATANGANA',
  BF: 'SALIF OUEDRAOGO', ML: 'FATOUMATA KEITA', BJ: 'KOFFI AHOUANDJINOU', TG: 'AKOSSIWA MENSAH', TZ: 'NEEMA MWAKYUSA',
};
const used = new Set<string>();
for (const m of PHONE_MARKETS) {
  const sample = { country: m.country, ...m.sample };
  used.add(normalizePhone(sample));
  const fields: Record<string, unknown> = { fullName: PHONE_NAMES[m.country] ?? 'SANDBOX SUBSCRIBER' };
  if (m.country === 'KE') fields['dateOfBirth'] = '1990-04-12';
  add({ kind: 'phone', country: m.country, description: m.country === 'KE' ? 'Registered subscriber: fullName and dateOfBirth (no split names)' : 'Registered subscriber',
    request: sample, expected: { status: 'success', fields } });
  const [other] = phoneVariants(m.country, m.sample.phoneNumber, 1, used);
  add({ kind: 'phone', country: m.country, description: 'Number not registered with the carrier (charged in live)',
    request: { ...sample, phoneNumber: other }, expected: { status: 'failed', errorCode: 'SUBSCRIBER_NOT_FOUND' } });
}
add({ kind: 'phone', country: 'NG', description: 'Too few digits: format failure, never charged', request: { country: 'NG', phoneNumber: '0802 123' },
  expected: { status: 'failed', errorCode: 'INVALID_PHONE_NUMBER' } });
add({ kind: 'phone', country: 'GH', description: 'Ghana without networkCode: format failure, never charged', request: { country: 'GH', phoneNumber: '023 123 4567' },
  expected: { status: 'failed', errorCode: 'NETWORK_CODE_REQUIRED' } });
add({ kind: 'phone', country: 'GH', description: 'Unknown Ghana network code: format failure, never charged', request: { country: 'GH', phoneNumber: '023 123 4567', networkCode: 'GLO' },
  expected: { status: 'failed', errorCode: 'INVALID_NETWORK_CODE' } });
{
  const [n] = phoneVariants('GH', '023 123 4567', 1, used);
  add({ kind: 'phone', country: 'GH', description: 'Number registered with another network than the one given (charged in live)',
    request: { country: 'GH', phoneNumber: n, networkCode: 'Vodafone' }, expected: { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: OTHER_NETWORK_MESSAGE } } });
}
// Right number, wrong network: a fixture matches on its network code too, so a registered subscriber's number sent with
// another (well-formed) network is not that subscriber (charged in live, like any definitive answer).
const WRONG_NETWORK: Record<string, string> = { GH: 'Vodafone', CI: 'MTN' };
for (const [country, networkCode] of Object.entries(WRONG_NETWORK)) {
  const m = PHONE_MARKETS.find((x) => x.country === country)!;
  if (norm(m.sample.networkCode) === norm(networkCode)) throw new Error(`${country}: the wrong network must differ from the fixture's`);
  add({ kind: 'phone', country, description: `Right number, wrong network: registered with ${m.sample.networkCode}, sent with ${networkCode} (charged in live)`,
    request: { country, ...m.sample, networkCode }, expected: { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: OTHER_NETWORK_MESSAGE } } });
}
{
  const numbers = phoneVariants('NG', '0802 123 4567', NON_ANSWERS.length, used);
  NON_ANSWERS.forEach(([code, description], i) =>
    add({ kind: 'phone', country: 'NG', description, request: { country: 'NG', phoneNumber: numbers[i] }, expected: { status: 'error', errorCode: code } }));
}

// ---------- identity ----------
const ke = (idType: string, idNumber: string, description: string, expected: Fixture['expected'], validation?: Record<string, string>) =>
  add({ kind: 'identity', country: 'KE', description, request: { country: 'KE', idType, idNumber, ...(validation ? { validation } : {}) }, expected });
ke('national_id', '12345678', 'National ID: split names and date of birth', { status: 'success', fields: { firstName: 'WANJIRU', middleName: 'AKINYI', lastName: 'KAMAU', dateOfBirth: '1990-04-12' } });
ke('national_id', '12345678', 'National ID with a first name that is not the holder’s (charged in live)',
  { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: 'The names given do not match the document holder.' } }, { firstName: 'Peter' });
ke('national_id', '87654321', 'National ID not in the registry (charged in live)', { status: 'failed', errorCode: 'IDENTIFIER_NOT_FOUND' });
ke('national_id', '1234567890', 'National ID of 10 digits: format failure, never charged', { status: 'failed', errorCode: 'VERIFICATION_FAILED' });
ke('passport', 'AK0123456', 'Passport: combined fullName', { status: 'success', fields: { fullName: 'OTIENO BRIAN ODHIAMBO', dateOfBirth: '1985-11-30' } });
ke('passport', 'AK9999999', 'Passport not in the registry (charged in live)', { status: 'failed', errorCode: 'IDENTIFIER_NOT_FOUND' });
ke('drivers_license', 'DL1234567', "Driver's licence whose names match: combined fullName", { status: 'success', fields: { fullName: 'WANJIRU AKINYI KAMAU' } },
  { firstName: 'Wanjiru', lastName: 'Kamau' });
ke('drivers_license', 'DL1234567', "Driver's licence with names that do not match (charged in live)",
  { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: 'The names given do not match the document holder.' } }, { firstName: 'John', lastName: 'Otieno' });
ke('drivers_license', 'DL9999999', "Driver's licence not in the registry (charged in live)", { status: 'failed', errorCode: 'IDENTIFIER_NOT_FOUND' },
  { firstName: 'Wanjiru', lastName: 'Kamau' });
NON_ANSWERS.forEach(([code, description], i) => ke('national_id', `9999999${i + 1}`, description, { status: 'error', errorCode: code }));
const gh = (idNumber: string, description: string, expected: Fixture['expected']) =>
  add({ kind: 'identity', country: 'GH', description, request: { country: 'GH', idType: 'ghana_card', idNumber }, expected });
gh('GHA-123456789-0', 'Ghana Card: combined fullName', { status: 'success', fields: { fullName: 'KWAME KOFI MENSAH', dateOfBirth: '1988-02-17' } });
gh('GHA-000000000-0', 'Ghana Card number not found (charged in live)', { status: 'failed', errorCode: 'IDENTIFIER_NOT_FOUND' });
gh('GHA-12345-0', 'Ghana Card number in the wrong format: format failure, never charged', { status: 'failed', errorCode: 'VERIFICATION_FAILED' });

// ---------- Ghana Card facial ----------
// A 1x1 PNG: the smallest valid selfie. Face fixtures are keyed by idNumber only, so any image works.
const SELFIE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const face = (idNumber: string, description: string, expected: Fixture['expected']) =>
  add({ kind: 'face', country: 'GH', description, request: { country: 'GH', idNumber, selfieImage: SELFIE }, expected });
face('GHA-123456789-0', 'Selfie matches the card holder', { status: 'success' });
FACE_MATCH_MESSAGES.forEach((message, i) =>
  face(`GHA-10000000${i + 1}-${i + 1}`, `FACE_MATCH_FAILED: ${message} (charged in live)`, { status: 'failed', errorCode: 'FACE_MATCH_FAILED', fields: { message } }));
NON_ANSWERS.forEach(([code, description], i) => face(`GHA-99999999${i + 1}-0`, description, { status: 'error', errorCode: code }));
face('GHA-12345-0', 'Ghana Card number in the wrong format: format failure, never charged', { status: 'failed', errorCode: 'FACE_MATCH_FAILED', fields: { message: FACE_MATCH_MESSAGES[5] } });

// ---------- address (always async: the API answers 202 pending; `expected` is the final record) ----------
const addr = (request: Record<string, unknown>, description: string, expected: Fixture['expected']) =>
  add({ kind: 'address', country: String(request['country']), description: `${description} (async: 202 pending, then this result)`, request, expected });
addr({ country: 'NG', addressLine1: '12 Admiralty Way', city: 'Lagos', region: 'Lagos', postalCode: '106104', subject: { firstName: 'Adaeze', lastName: 'Okafor' } },
  'Address found; the subject is associated with it',
  { status: 'success', fields: { address: { addressLine1: '12 ADMIRALTY WAY', city: 'LEKKI PHASE 1', region: 'LAGOS', postalCode: '106104', country: 'NG' } } });
addr({ country: 'GB', addressLine1: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA' }, 'Address found',
  { status: 'success', fields: { address: { addressLine1: '10 DOWNING STREET', city: 'LONDON', postalCode: 'SW1A 2AA', country: 'GB' } } });
addr({ country: 'NG', addressLine1: '1 Nowhere Street', city: 'Lagos', postalCode: '100001' }, 'Address does not exist (charged in live)',
  { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: 'The address could not be found.' } });
addr({ country: 'KE', addressLine1: '1 Kenyatta Avenue', city: 'Nairobi', postalCode: '00100', subject: { firstName: 'John', lastName: 'Otieno' } },
  'Address exists but the subject is not associated with it (charged in live)',
  { status: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { message: 'The subject is not associated with this address.' } });
NON_ANSWERS.forEach(([code, description], i) =>
  addr({ country: 'KE', addressLine1: `${i + 1} Moi Avenue`, city: 'Nairobi', postalCode: '00100' }, description, { status: 'error', errorCode: code }));

// ---------- self-checks ----------
const FORMAT_CODES = new Set(['INVALID_ACCOUNT_NUMBER', 'INVALID_BANK_CODE', 'INVALID_PHONE_NUMBER', 'INVALID_NETWORK_CODE', 'NETWORK_CODE_REQUIRED']);
for (const f of out) {
  const r = f.request as never;
  const layer1 = f.kind === 'account' ? accountRequestIssues(r) : f.kind === 'phone' ? phoneRequestIssues(r) : f.kind === 'identity' ? identityRequestIssues(r) : [];
  if (layer1.length > 0) throw new Error(`fixture fails layer 1: ${f.description} ${JSON.stringify(layer1)}`);
  const layer2 =
    f.kind === 'account' ? accountFormatFailure(r) : f.kind === 'phone' ? phoneFormatFailure(r)
      : f.kind === 'identity' ? identityFormatFailure(r)
        : f.kind === 'face' ? faceFormatFailure((f.request as { idNumber: string }).idNumber) : null;
  const wantsFormat = FORMAT_CODES.has(f.expected.errorCode ?? '') || /format failure/.test(f.description);
  if (wantsFormat && layer2?.code !== f.expected.errorCode) throw new Error(`expected format failure ${f.expected.errorCode}: ${f.country} ${f.description}`);
  if (!wantsFormat && layer2) throw new Error(`unexpected format failure ${layer2.code} (${layer2.message}): ${f.country} ${f.description}`);
  if (f.expected.errorCode && !(f.expected.errorCode in VERIFICATION_ERRORS)) throw new Error(`unknown code ${f.expected.errorCode}`);
}

const file = join(import.meta.dirname, '..', 'resources', 'sandbox', 'fixtures.json');
writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
console.log(`wrote ${out.length} fixtures to ${file}`);
