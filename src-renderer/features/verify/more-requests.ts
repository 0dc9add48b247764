// The phone, identity, face and address forms as plain data: building API requests from them, filling them from
// sandbox fixtures, checking them with the shared rules, and reading a selfie. Free of React so it can be tested.
import type { ChannelInput } from '../../../src-shared/channels';
import { ADDRESS_COUNTRIES, addressRequestIssues } from '../../../src-shared/address-rules';
import { getIdentityType, identityFormatFailure, identityRequestIssues } from '../../../src-shared/identity-rules';
import { getPhoneMarket, phoneFormatFailure, phoneRequestIssues } from '../../../src-shared/phone-markets';
import { IsoDateSchema, MAX_SELFIE_BYTES, MAX_SELFIE_LABEL, SELFIE_MIME_TYPES } from '../../../src-shared/schemas/verification-more';

export type PhoneRequestInput = ChannelInput<'verify:phone'>['request'];
export type IdentityRequestInput = ChannelInput<'verify:identity'>['request'];
export type FaceRequestInput = ChannelInput<'verify:face'>['request'];
export type AddressRequestInput = ChannelInput<'verify:address'>['request'];

/** Field name → message, for inputs; `general` collects what fits no input. */
export type FieldMessages = Record<string, string | undefined>;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}
function opt(v: string): string | undefined {
  const t = v.trim();
  return t === '' ? undefined : t;
}

/** A server detail field ("request.validation.firstName", "phoneNumber") as the form field it belongs to. */
export function detailField(field: string): string {
  const f = field.replace(/^(body|request)\./, '');
  return f.startsWith('subject.') ? f.slice('subject.'.length) : f.replace(/^validation\./, '');
}

/** Each form's inputs by field, as their labels read: the words a message about that field uses (issue 13 §5). */
export type FieldLabels = Readonly<Record<string, string>>;

/**
 * A rule's message in the form's words: the API's field name it starts with ("phoneNumber is required.",
 * "validation.firstName is required for …") becomes the input's label ("Phone number is required."); the rest of the
 * sentence, which says why, stays.
 */
export function inFormWords(issue: { field: string; message: string }, labels: FieldLabels): string {
  const label = labels[detailField(issue.field)];
  if (!label) return issue.message;
  // The name as the rule wrote it: the detail's path, without the door's prefix (`request.`), or the bare field.
  for (const name of [issue.field, issue.field.replace(/^(body|request)\./, ''), detailField(issue.field)]) {
    if (issue.message.startsWith(`${name} `)) return `${label}${issue.message.slice(name.length)}`;
  }
  return issue.message;
}

export function issuesToMessages(issues: readonly { field: string; message: string }[], known: readonly string[], labels: FieldLabels = {}): FieldMessages {
  const out: FieldMessages = {};
  for (const i of issues) {
    const f = detailField(i.field);
    const key = known.includes(f) ? f : 'general';
    const message = inFormWords(i, labels);
    out[key] = out[key] ? `${out[key]} ${message}` : message;
  }
  return out;
}

// ---- Phone -------------------------------------------------------------------------------------------------

export interface PhoneForm {
  country: string;
  phoneNumber: string;
  networkCode: string;
  async: boolean;
}
export const EMPTY_PHONE: PhoneForm = { country: 'NG', phoneNumber: '', networkCode: '', async: false };
export const PHONE_FIELDS = ['country', 'phoneNumber', 'networkCode', 'mode'] as const;
export const PHONE_LABELS: FieldLabels = { country: 'Market', phoneNumber: 'Phone number', networkCode: 'Network' };

export function toPhoneRequest(f: PhoneForm): PhoneRequestInput {
  const market = getPhoneMarket(f.country);
  const networkCode = market && market.networkCodes.length > 0 ? opt(f.networkCode) : undefined;
  return {
    country: f.country,
    phoneNumber: f.phoneNumber.trim(),
    ...(networkCode ? { networkCode } : {}),
    ...(f.async ? { mode: 'async' as const } : {}),
  };
}

export function phoneFormFromFixture(req: Record<string, unknown>): PhoneForm {
  return { country: str(req['country']).toUpperCase(), phoneNumber: str(req['phoneNumber']), networkCode: str(req['networkCode']), async: req['mode'] === 'async' };
}

/** Blocking issues (the service would answer 422) and a format warning (it would record a failed check). */
export function checkPhone(f: PhoneForm): { errors: FieldMessages; warning: { field: string; message: string } | null } {
  const req = toPhoneRequest(f);
  const like = { country: req.country, phoneNumber: req.phoneNumber, ...(req.networkCode ? { networkCode: req.networkCode } : {}) };
  const issues = phoneRequestIssues(like);
  if (issues.length) return { errors: issuesToMessages(issues, PHONE_FIELDS, PHONE_LABELS), warning: null };
  const failure = phoneFormatFailure(like);
  const field = failure?.code === 'INVALID_PHONE_NUMBER' ? 'phoneNumber' : 'networkCode';
  return { errors: {}, warning: failure ? { field, message: inFormWords({ field, message: failure.message }, PHONE_LABELS) } : null };
}

// ---- Identity ----------------------------------------------------------------------------------------------

export interface IdentityForm {
  idType: string;
  idNumber: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  async: boolean;
}
export const EMPTY_IDENTITY: IdentityForm = { idType: 'national_id', idNumber: '', firstName: '', lastName: '', dateOfBirth: '', async: false };
export const IDENTITY_FIELDS = ['country', 'idType', 'idNumber', 'firstName', 'lastName', 'dateOfBirth', 'mode'] as const;
export const IDENTITY_LABELS: FieldLabels = { idType: 'Document type', idNumber: 'Document number', firstName: 'First name', lastName: 'Last name', dateOfBirth: 'Date of birth' };

export function toIdentityRequest(f: IdentityForm): IdentityRequestInput {
  const type = getIdentityType(f.idType);
  const validation = {
    ...(opt(f.firstName) ? { firstName: f.firstName.trim() } : {}),
    ...(opt(f.lastName) ? { lastName: f.lastName.trim() } : {}),
    ...(opt(f.dateOfBirth) ? { dateOfBirth: f.dateOfBirth.trim() } : {}),
  };
  return {
    country: type?.country ?? '',
    idType: (type?.idType ?? f.idType) as IdentityRequestInput['idType'],
    idNumber: f.idNumber.trim(),
    ...(Object.keys(validation).length ? { validation } : {}),
    ...(f.async ? { mode: 'async' as const } : {}),
  };
}

export function identityFormFromFixture(req: Record<string, unknown>): IdentityForm {
  const v = obj(req['validation']);
  return {
    idType: str(req['idType']),
    idNumber: str(req['idNumber']),
    firstName: str(v['firstName']),
    lastName: str(v['lastName']),
    dateOfBirth: str(v['dateOfBirth']),
    async: req['mode'] === 'async',
  };
}

export function checkIdentity(f: IdentityForm): { errors: FieldMessages; warning: { field: string; message: string } | null } {
  const req = toIdentityRequest(f);
  const errors: FieldMessages = {};
  if (!getIdentityType(f.idType)) errors['idType'] = 'Choose a document type.';
  if (f.dateOfBirth.trim() && !isIsoDate(f.dateOfBirth.trim())) errors['dateOfBirth'] = 'Use the form YYYY-MM-DD.';
  const type = getIdentityType(f.idType);
  const issues = identityRequestIssues({ country: req.country, idType: req.idType, idNumber: req.idNumber, ...(req.validation ? { validation: req.validation } : {}) }).map((i) =>
    // A name the document type needs: said with the document's own name, not its API value (drivers_license).
    type && /^validation\.(firstName|lastName)$/.test(i.field) ? { ...i, message: `${i.field} is required for a ${type.label}.` } : i,
  );
  const all: FieldMessages = { ...issuesToMessages(issues, IDENTITY_FIELDS, IDENTITY_LABELS), ...errors };
  if (Object.values(all).some(Boolean)) return { errors: all, warning: null };
  const failure = identityFormatFailure({ country: req.country, idType: req.idType, idNumber: req.idNumber });
  return { errors: {}, warning: failure ? { field: 'idNumber', message: failure.message } : null };
}

/** The service's own date rule (src-shared), so the form never accepts a date the API refuses. */
export function isIsoDate(s: string): boolean {
  return IsoDateSchema.safeParse(s).success;
}

// ---- Face --------------------------------------------------------------------------------------------------

export interface FaceForm {
  idNumber: string;
  /** Base64 of the image, without a data: prefix. */
  selfieImage: string;
  fileName: string;
}
export const EMPTY_FACE: FaceForm = { idNumber: '', selfieImage: '', fileName: '' };
export const FACE_FIELDS = ['country', 'idNumber', 'selfieImage'] as const;
export const FACE_LABELS: FieldLabels = { idNumber: 'Ghana Card number', selfieImage: 'Selfie' };

export function toFaceRequest(f: FaceForm): FaceRequestInput {
  return { country: 'GH', idNumber: f.idNumber.trim(), selfieImage: f.selfieImage };
}

export function faceFormFromFixture(req: Record<string, unknown>): FaceForm {
  return { idNumber: str(req['idNumber']), selfieImage: stripDataUrl(str(req['selfieImage'])), fileName: 'sandbox fixture image' };
}

export function checkFace(f: FaceForm): { errors: FieldMessages; warning: { field: string; message: string } | null } {
  const errors: FieldMessages = {};
  if (!f.idNumber.trim()) errors['idNumber'] = 'Enter the Ghana Card number.';
  if (!f.selfieImage) errors['selfieImage'] = `Choose a selfie (JPEG or PNG, at most ${MAX_SELFIE_LABEL}).`;
  if (Object.keys(errors).length) return { errors, warning: null };
  const failure = identityFormatFailure({ country: 'GH', idType: 'ghana_card', idNumber: f.idNumber });
  return { errors: {}, warning: failure ? { field: 'idNumber', message: failure.message } : null };
}

/** Why a picked file cannot be sent, or null. Checked before reading it, so a huge file is never loaded. */
export function selfieFileProblem(file: { size: number; type: string }): string | null {
  if (!(SELFIE_MIME_TYPES as readonly string[]).includes(file.type)) return 'The selfie must be a JPEG or PNG image.';
  if (file.size > MAX_SELFIE_BYTES) return `The selfie is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_SELFIE_LABEL}. Use a smaller or more compressed photo.`;
  if (file.size === 0) return 'The file is empty.';
  return null;
}

export function stripDataUrl(s: string): string {
  const m = /^data:[^;,]*;base64,/.exec(s);
  return m ? s.slice(m[0].length) : s;
}

/** The image type from the first base64 characters (PNG and JPEG signatures), for the preview's data: URL. */
export function imageMimeOf(base64: string): string {
  if (base64.startsWith('iVBORw0KGgo')) return 'image/png';
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  return 'application/octet-stream';
}

// ---- Address -----------------------------------------------------------------------------------------------

export interface AddressForm {
  country: string;
  addressLine1: string;
  addressLine2: string;
  city: string;
  region: string;
  postalCode: string;
  firstName: string;
  lastName: string;
}
export const EMPTY_ADDRESS: AddressForm = { country: 'NG', addressLine1: '', addressLine2: '', city: '', region: '', postalCode: '', firstName: '', lastName: '' };
export const ADDRESS_FIELDS = ['country', 'addressLine1', 'addressLine2', 'city', 'region', 'postalCode', 'firstName', 'lastName', 'subject'] as const;
export const ADDRESS_LABELS: FieldLabels = {
  country: 'Country',
  addressLine1: 'Address line 1',
  addressLine2: 'Address line 2',
  city: 'City',
  region: 'Region',
  postalCode: 'Postal code',
  firstName: 'First name',
  lastName: 'Last name',
};


export function toAddressRequest(f: AddressForm): AddressRequestInput {
  const line2 = opt(f.addressLine2);
  const region = opt(f.region);
  const postalCode = opt(f.postalCode);
  const first = opt(f.firstName);
  const last = opt(f.lastName);
  return {
    country: f.country,
    addressLine1: f.addressLine1.trim(),
    ...(line2 ? { addressLine2: line2 } : {}),
    city: f.city.trim(),
    ...(region ? { region } : {}),
    ...(postalCode ? { postalCode } : {}),
    ...(first && last ? { subject: { firstName: first, lastName: last } } : {}),
  };
}

export function addressFormFromFixture(req: Record<string, unknown>): AddressForm {
  const s = obj(req['subject']);
  return {
    country: str(req['country']).toUpperCase(),
    addressLine1: str(req['addressLine1']),
    addressLine2: str(req['addressLine2']),
    city: str(req['city']),
    region: str(req['region']),
    postalCode: str(req['postalCode']),
    firstName: str(s['firstName']),
    lastName: str(s['lastName']),
  };
}

export function checkAddress(f: AddressForm): FieldMessages {
  const errors: FieldMessages = {};
  if (!ADDRESS_COUNTRIES.includes(f.country)) errors['country'] = 'Choose a country.';
  if (!f.addressLine1.trim()) errors['addressLine1'] = 'Enter the first address line.';
  if (!f.city.trim()) errors['city'] = 'Enter the city.';
  for (const issue of addressRequestIssues(f)) errors[issue.field] = inFormWords(issue, ADDRESS_LABELS);
  // The subject is both names or none: half a name cannot be matched against the address.
  if (!f.firstName.trim() !== !f.lastName.trim()) {
    errors[f.firstName.trim() ? 'lastName' : 'firstName'] = 'Give both the first and last name of the subject, or neither.';
  }
  return errors;
}
