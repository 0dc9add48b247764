// The simulator's deterministic "bank/carrier/registry": a small seeded directory plus rules, so the same query
// always gets the same answer (docs/simulator.md lists both). Pure: no I/O, no clock, no randomness.

export type GenericResult = 'MATCH' | 'NO_MATCH' | 'NOT_FOUND' | 'INCONCLUSIVE' | 'INVALID';
export type GenericKind = 'account' | 'phone' | 'identity' | 'face' | 'address';
export const GENERIC_KINDS: readonly GenericKind[] = ['account', 'phone', 'identity', 'face', 'address'];

export interface GenericData {
  accountName?: string;
  bankName?: string;
  fullName?: string;
  firstName?: string;
  lastName?: string;
  middleName?: string;
  dateOfBirth?: string;
  address?: Record<string, string>;
}
export interface GenericAnswer {
  result: GenericResult;
  reason?: string;
  data?: GenericData;
}

export type AccountType = 'Personal' | 'Business';
export interface AccountEntry {
  name: string;
  type: AccountType;
  bankName: string;
}
export interface PersonEntry {
  firstName: string;
  middleName?: string;
  lastName: string;
  dateOfBirth: string;
}

/** Names handed out to accounts that are not seeded; businesses end in Ltd/GmbH/SARL so their type is obvious. */
const DERIVED_NAMES: readonly { name: string; type: AccountType }[] = [
  { name: 'Amara Okafor', type: 'Personal' },
  { name: 'Kwame Mensah', type: 'Personal' },
  { name: 'Wanjiru Kamau', type: 'Personal' },
  { name: 'Oliver Bennett', type: 'Personal' },
  { name: 'Sofia Rossi', type: 'Personal' },
  { name: 'Lukas Schneider', type: 'Personal' },
  { name: 'Chloe Martin', type: 'Personal' },
  { name: 'Tunde Adeyemi', type: 'Personal' },
  { name: 'Harbour Logistics Ltd', type: 'Business' },
  { name: 'Nordlicht Handel GmbH', type: 'Business' },
  { name: 'Sahel Agro Exports Ltd', type: 'Business' },
  { name: 'Boulangerie Laurent SARL', type: 'Business' },
];
const DERIVED_BANKS: readonly string[] = [
  'Simulated First Bank',
  'Simulated Savings Bank',
  'Simulated Cooperative Bank',
  'Simulated Merchant Bank',
];
const DERIVED_PEOPLE: readonly Omit<PersonEntry, 'dateOfBirth'>[] = [
  { firstName: 'Achieng', lastName: 'Otieno' },
  { firstName: 'Kofi', middleName: 'Yaw', lastName: 'Boateng' },
  { firstName: 'Grace', lastName: 'Njeri' },
  { firstName: 'Emmanuel', lastName: 'Asante' },
  { firstName: 'Fatima', middleName: 'Zahra', lastName: 'Bello' },
  { firstName: 'Daniel', lastName: 'Kiprop' },
];

/** Seeded accounts, keyed by the account identifier as the API carries it (digits, GB sort code + account, or IBAN). */
export const SEEDED_ACCOUNTS: Readonly<Record<string, AccountEntry>> = {
  '0123456789': { name: 'Adaeze Nwosu', type: 'Personal', bankName: 'Guaranty Trust Bank' },
  '1234567890': { name: 'Kofi Annan Trading Ltd', type: 'Business', bankName: 'Ghana Commercial Bank' },
  '20000055779911': { name: 'Jane Smith', type: 'Personal', bankName: 'Simulated Barclays' },
  '40053012345678': { name: 'Acme Widgets Ltd', type: 'Business', bankName: 'Simulated HSBC' },
  DE89370400440532013000: { name: 'Max Mustermann', type: 'Personal', bankName: 'Simulated Commerzbank' },
  FR1420041010050500013M02606: { name: 'Marie Dupont', type: 'Personal', bankName: 'Simulated La Banque Postale' },
  NL91ABNA0417164300: { name: 'Tulip Holding B.V.', type: 'Business', bankName: 'Simulated ABN AMRO' },
};

/** Seeded phone subscribers (E.164). */
export const SEEDED_PHONES: Readonly<Record<string, { firstName: string; lastName: string }>> = {
  '+254712345678': { firstName: 'Wanjiru', lastName: 'Kamau' },
  '+233241234567': { firstName: 'Kwame', lastName: 'Mensah' },
  '+2348031234567': { firstName: 'Amara', lastName: 'Okafor' },
};

/** Seeded registry identities, keyed by idNumber. */
export const SEEDED_IDENTITIES: Readonly<Record<string, PersonEntry>> = {
  '12345678': { firstName: 'John', middleName: 'Kamau', lastName: 'Doe', dateOfBirth: '1990-01-15' },
  'GHA-123456789-0': { firstName: 'Ama', lastName: 'Owusu', dateOfBirth: '1988-07-04' },
};

/** FNV-1a: small, stable, and the same on every platform (answers must not change between runs). */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function pick<T>(list: readonly T[], key: string): T {
  return list[stableHash(key) % list.length]!;
}

/** Case-, space- and punctuation-insensitive form used for every name comparison. */
export function normaliseName(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

export type NameMatch = 'exact' | 'close' | 'none';
/** Close means an edit distance of at most 2 after normalising (a typo, a missing letter). */
export function compareNames(given: string, held: string): NameMatch {
  const a = normaliseName(given);
  const b = normaliseName(held);
  if (a === b) return 'exact';
  return editDistance(a, b) <= 2 ? 'close' : 'none';
}

/** Strips spaces and dashes, upper-cases: the key accounts are looked up by. */
export function accountKey(raw: string): string {
  return raw.replace(/[\s-]/g, '').toUpperCase();
}

/** Extra directory entries a test or demo adds on top of the seeded ones (they win over the built-in ones). */
export interface SimSeed {
  accounts?: Record<string, AccountEntry>;
  phones?: Record<string, { firstName: string; lastName: string }>;
  identities?: Record<string, PersonEntry>;
}

export type Lookup<T> = { found: true; entry: T } | { found: false; why: 'not-found' | 'inconclusive' };

/** The special endings apply to every kind: ...0000 is unknown, ...9999 cannot be answered right now. */
function specialEnding(key: string): 'not-found' | 'inconclusive' | null {
  if (key.endsWith('0000')) return 'not-found';
  if (key.endsWith('9999')) return 'inconclusive';
  return null;
}

export function lookupAccount(identifier: string, bankCode?: string, seed: SimSeed = {}): Lookup<AccountEntry> {
  const key = accountKey(identifier);
  const seeded = seed.accounts?.[key] ?? SEEDED_ACCOUNTS[key];
  if (seeded) return { found: true, entry: seeded };
  const special = specialEnding(key);
  if (special) return { found: false, why: special };
  const derived = pick(DERIVED_NAMES, key);
  return { found: true, entry: { ...derived, bankName: pick(DERIVED_BANKS, bankCode ?? key) } };
}

export function lookupPhone(phoneNumber: string, seed: SimSeed = {}): Lookup<{ firstName: string; lastName: string }> {
  const key = phoneNumber.replace(/[\s()-]/g, '');
  const seeded = seed.phones?.[key] ?? SEEDED_PHONES[key];
  if (seeded) return { found: true, entry: seeded };
  const special = specialEnding(key);
  if (special) return { found: false, why: special };
  const p = pick(DERIVED_PEOPLE, key);
  return { found: true, entry: { firstName: p.firstName, lastName: p.lastName } };
}

export function lookupIdentity(idNumber: string, seed: SimSeed = {}): Lookup<PersonEntry> {
  const key = idNumber.trim().toUpperCase();
  const seeded = seed.identities?.[key] ?? SEEDED_IDENTITIES[key];
  if (seeded) return { found: true, entry: seeded };
  const special = specialEnding(key);
  if (special) return { found: false, why: special };
  const h = stableHash(key);
  const p = pick(DERIVED_PEOPLE, key);
  const year = 1950 + (h % 50);
  const month = 1 + ((h >>> 8) % 12);
  const day = 1 + ((h >>> 16) % 28);
  const dateOfBirth = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { found: true, entry: { ...p, dateOfBirth } };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const invalid = (reason: string): GenericAnswer => ({ result: 'INVALID', reason });
const missing = (why: 'not-found' | 'inconclusive', what: string): GenericAnswer =>
  why === 'not-found' ? { result: 'NOT_FOUND', reason: `${what} not found` } : { result: 'INCONCLUSIVE', reason: 'source temporarily unable to answer' };

function answerAccount(q: Record<string, unknown>, seed: SimSeed): GenericAnswer {
  const iban = str(q['iban']);
  const accountNumber = str(q['accountNumber']);
  const sortCode = str(q['sortCode']);
  const identifier = iban ?? (sortCode && accountNumber ? `${sortCode}${accountNumber}` : accountNumber);
  if (!identifier) return invalid('accountNumber or iban is required');
  if (!/^[A-Za-z0-9\s-]{4,40}$/.test(identifier)) return invalid('account identifier format is not valid');
  const found = lookupAccount(identifier, str(q['bankCode']), seed);
  if (!found.found) return missing(found.why, 'account');
  const { entry } = found;
  const given = str(q['accountName']);
  if (given === undefined) return { result: 'MATCH', data: { accountName: entry.name, bankName: entry.bankName } };
  const m = compareNames(given, entry.name);
  if (m === 'exact') return { result: 'MATCH', data: { accountName: entry.name, bankName: entry.bankName } };
  // A close match names the holder (like CMTC/MBAM) so the caller can show it; a plain no-match names no one.
  if (m === 'close') return { result: 'NO_MATCH', reason: 'CLOSE_MATCH', data: { accountName: entry.name, bankName: entry.bankName } };
  return { result: 'NO_MATCH', reason: 'NAME_MISMATCH', data: { bankName: entry.bankName } };
}

function answerPhone(q: Record<string, unknown>, seed: SimSeed): GenericAnswer {
  const phone = str(q['phoneNumber']);
  if (!phone) return invalid('phoneNumber is required');
  if (!/^\+?[0-9\s()-]{6,20}$/.test(phone)) return invalid('phoneNumber format is not valid');
  const found = lookupPhone(phone, seed);
  if (!found.found) return missing(found.why, 'subscriber');
  const { firstName, lastName } = found.entry;
  return { result: 'MATCH', data: { fullName: `${firstName} ${lastName}`, firstName, lastName } };
}

function personData(p: PersonEntry): GenericData {
  const fullName = [p.firstName, p.middleName, p.lastName].filter(Boolean).join(' ');
  return { fullName, firstName: p.firstName, lastName: p.lastName, dateOfBirth: p.dateOfBirth, ...(p.middleName ? { middleName: p.middleName } : {}) };
}

function answerIdentity(q: Record<string, unknown>, seed: SimSeed): GenericAnswer {
  const idNumber = str(q['idNumber']);
  if (!idNumber) return invalid('idNumber is required');
  if (!/^[A-Za-z0-9-]{4,40}$/.test(idNumber)) return invalid('idNumber format is not valid');
  const found = lookupIdentity(idNumber, seed);
  if (!found.found) return missing(found.why, 'identifier');
  const p = found.entry;
  const mismatches: string[] = [];
  const firstName = str(q['firstName']);
  const lastName = str(q['lastName']);
  const dob = str(q['dateOfBirth']);
  if (firstName !== undefined && compareNames(firstName, p.firstName) === 'none') mismatches.push('firstName');
  if (lastName !== undefined && compareNames(lastName, p.lastName) === 'none') mismatches.push('lastName');
  if (dob !== undefined && dob !== p.dateOfBirth) mismatches.push('dateOfBirth');
  if (mismatches.length > 0) return { result: 'NO_MATCH', reason: `mismatch: ${mismatches.join(',')}` };
  return { result: 'MATCH', data: personData(p) };
}

function answerFace(q: Record<string, unknown>, seed: SimSeed): GenericAnswer {
  const idNumber = str(q['idNumber']);
  const image = str(q['imageSha256']);
  if (!idNumber) return invalid('idNumber is required');
  if (!image || !/^[0-9a-fA-F]{64}$/.test(image)) return invalid('imageSha256 must be 64 hex digits');
  const found = lookupIdentity(idNumber, seed);
  if (!found.found) return missing(found.why, 'identifier');
  // The "face" is the image digest: one starting with ff never matches, so tests can pick either outcome.
  if (image.toLowerCase().startsWith('ff')) return { result: 'NO_MATCH', reason: 'face does not match the registry photo' };
  return { result: 'MATCH', data: personData(found.entry) };
}

function answerAddress(q: Record<string, unknown>, _seed: SimSeed): GenericAnswer {
  const line1 = str(q['addressLine1']);
  const city = str(q['city']);
  if (!line1 || !city) return invalid('addressLine1 and city are required');
  const postal = str(q['postalCode']);
  const key = accountKey(postal ?? line1);
  const special = specialEnding(key);
  if (special) return missing(special, 'address');
  // Street numbers ending in 13 are "not at this address": a deterministic negative outcome.
  if (/(^|\D)13(\D|$)/.test(line1)) return { result: 'NO_MATCH', reason: 'subject not known at this address' };
  const address: Record<string, string> = { addressLine1: line1, city };
  for (const f of ['addressLine2', 'region', 'postalCode'] as const) {
    const v = str(q[f]);
    if (v !== undefined) address[f] = v;
  }
  return { result: 'MATCH', data: { address } };
}

/** The answer of the generic API for one query. */
export function answerGeneric(kind: GenericKind, query: Record<string, unknown>, seed: SimSeed = {}): GenericAnswer {
  switch (kind) {
    case 'account':
      return answerAccount(query, seed);
    case 'phone':
      return answerPhone(query, seed);
    case 'identity':
      return answerIdentity(query, seed);
    case 'face':
      return answerFace(query, seed);
    case 'address':
      return answerAddress(query, seed);
  }
}

export type VopCode = 'MTCH' | 'CMTC' | 'NMTC' | 'NOAP';
/** EPC VoP: account not found, inconclusive or a bad IBAN are all "verification not possible" (EPC FAQ: NOAP). */
export function answerVop(iban: string, name: string, seed: SimSeed = {}): { code: VopCode; matchedName?: string } {
  const key = accountKey(iban);
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/.test(key)) return { code: 'NOAP' };
  const found = lookupAccount(key, undefined, seed);
  if (!found.found) return { code: 'NOAP' };
  const m = compareNames(name, found.entry.name);
  if (m === 'exact') return { code: 'MTCH' };
  if (m === 'close') return { code: 'CMTC', matchedName: found.entry.name };
  return { code: 'NMTC' };
}

export type CopReason = 'ANNM' | 'MBAM' | 'BANM' | 'PANM' | 'BAMM' | 'PAMM' | 'AC01' | 'IVCR' | 'ACNS' | 'OPTO' | 'CASS' | 'SCNS';
export interface CopAnswer {
  matched: boolean;
  reasonCode?: CopReason;
  name?: string;
}
/**
 * Pay.UK CoP rules. Identification is the 6-digit sort code + 8-digit account number. Sort codes starting 99 are
 * not supported (SCNS); account endings pick the other negative outcomes (see docs/simulator.md).
 */
export function answerCop(identification: string, name: string, accountType: AccountType, secondary?: string, seed: SimSeed = {}): CopAnswer {
  const id = identification.replace(/[\s-]/g, '');
  if (!/^[0-9]{14}$/.test(id)) return { matched: false, reasonCode: 'AC01' };
  if (id.startsWith('99')) return { matched: false, reasonCode: 'SCNS' };
  if (secondary !== undefined && !/^[A-Za-z0-9 /.-]{1,18}$/.test(secondary)) return { matched: false, reasonCode: 'IVCR' };
  const account = id.slice(6);
  if (account.endsWith('8888')) return { matched: false, reasonCode: 'OPTO' };
  if (account.endsWith('7777')) return { matched: false, reasonCode: 'CASS' };
  if (account.endsWith('9999')) return { matched: false, reasonCode: 'ACNS' };
  const found = lookupAccount(id, undefined, seed);
  if (!found.found) return { matched: false, reasonCode: 'AC01' };
  const { entry } = found;
  const m = compareNames(name, entry.name);
  if (m === 'none') return { matched: false, reasonCode: 'ANNM' };
  const business = entry.type === 'Business';
  if (entry.type === accountType) return m === 'exact' ? { matched: true } : { matched: false, reasonCode: 'MBAM', name: entry.name };
  if (m === 'exact') return { matched: false, reasonCode: business ? 'BANM' : 'PANM' };
  return { matched: false, reasonCode: business ? 'BAMM' : 'PAMM', name: entry.name };
}
