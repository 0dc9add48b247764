// The phone, identity, face and address forms: requests built from them, fixtures read back into them, and the
// client-side checks that mirror the service's validation layers.
import { describe, it, expect } from 'vitest';
import fixtures from '../../../resources/sandbox/fixtures.json';
import {
  addressFormFromFixture,
  checkAddress,
  checkFace,
  checkIdentity,
  checkPhone,
  detailField,
  IDENTITY_FIELDS,
  IDENTITY_LABELS,
  issuesToMessages,
  EMPTY_ADDRESS,
  EMPTY_IDENTITY,
  EMPTY_PHONE,
  faceFormFromFixture,
  identityFormFromFixture,
  imageMimeOf,
  isIsoDate,
  phoneFormFromFixture,
  selfieFileProblem,
  stripDataUrl,
  toAddressRequest,
  toFaceRequest,
  toIdentityRequest,
  toPhoneRequest,
} from '../../../src-renderer/features/verify/more-requests';
import { AddressRequestSchema, FaceRequestSchema, IdentityRequestSchema, PhoneRequestSchema } from '../../../src-shared/schemas/verification-more';

type Fixture = { kind: string; request: Record<string, unknown>; expected: { status: string; errorCode?: string } };
const all = fixtures as Fixture[];

// Every documented sandbox request must survive the trip fixture → form → request unchanged (schema-normalised),
// or "Fill from sandbox fixture" would send something other than the documented body.
describe('fixture round trip', () => {
  const cases: [string, (r: Record<string, unknown>) => unknown, { parse: (v: unknown) => unknown }][] = [
    ['phone', (r) => toPhoneRequest(phoneFormFromFixture(r)), PhoneRequestSchema],
    ['identity', (r) => toIdentityRequest(identityFormFromFixture(r)), IdentityRequestSchema],
    ['face', (r) => toFaceRequest(faceFormFromFixture(r)), FaceRequestSchema],
    ['address', (r) => toAddressRequest(addressFormFromFixture(r)), AddressRequestSchema],
  ];
  for (const [kind, rebuild, schema] of cases) {
    it(`${kind}: every fixture`, () => {
      const list = all.filter((f) => f.kind === kind);
      expect(list.length).toBeGreaterThan(0);
      for (const f of list) expect(schema.parse(rebuild(f.request))).toEqual(schema.parse(f.request));
    });
  }
});

describe('phone', () => {
  it('blocks an empty number and warns on a bad one', () => {
    // In the form's words (issue 13 §5): the input's label, not the API's field name.
    expect(checkPhone({ ...EMPTY_PHONE, phoneNumber: ' ' }).errors['phoneNumber']).toBe('Phone number is required.');
    expect(checkPhone({ ...EMPTY_PHONE, phoneNumber: '123' }).warning?.field).toBe('phoneNumber');
    expect(checkPhone({ ...EMPTY_PHONE, phoneNumber: '0802 123 4567' })).toEqual({ errors: {}, warning: null });
  });
  it('warns when a market needs a network code and none is chosen', () => {
    const r = checkPhone({ country: 'GH', phoneNumber: '023 123 4567', networkCode: '', async: false });
    expect(r.warning).toEqual({ field: 'networkCode', message: expect.stringMatching(/^Network is required for Ghana: one of MTN/) });
    expect(checkPhone({ country: 'GH', phoneNumber: '023 123 4567', networkCode: 'MTN', async: false }).warning).toBeNull();
  });
  it('drops a network code in a market without codes and sets mode for async', () => {
    expect(toPhoneRequest({ country: 'NG', phoneNumber: '0802', networkCode: 'MTN', async: true })).toEqual({ country: 'NG', phoneNumber: '0802', mode: 'async' });
  });
});

describe('identity', () => {
  it('implies the country from the document type', () => {
    expect(toIdentityRequest({ ...EMPTY_IDENTITY, idType: 'ghana_card', idNumber: 'GHA-123456789-0' })).toEqual({ country: 'GH', idType: 'ghana_card', idNumber: 'GHA-123456789-0' });
    expect(toIdentityRequest({ ...EMPTY_IDENTITY, idNumber: '1' }).country).toBe('KE');
  });
  it("requires both names for a driver's licence", () => {
    const r = checkIdentity({ ...EMPTY_IDENTITY, idType: 'drivers_license', idNumber: 'DL1', firstName: 'A' });
    expect(r.errors['lastName']).toBe("Last name is required for a Kenyan driver's licence.");
    expect(r.errors['firstName']).toBeUndefined();
    expect(checkIdentity({ ...EMPTY_IDENTITY, idNumber: '' }).errors['idNumber']).toBe('Document number is required.');
  });
  it('warns on a malformed number and rejects an impossible date', () => {
    expect(checkIdentity({ ...EMPTY_IDENTITY, idNumber: '1234567890' }).warning?.field).toBe('idNumber');
    expect(checkIdentity({ ...EMPTY_IDENTITY, idNumber: '12345678', dateOfBirth: '1990-02-30' }).errors['dateOfBirth']).toBeTruthy();
    expect(isIsoDate('1990-02-28')).toBe(true);
  });
});

describe('face', () => {
  it('refuses files that are not JPEG/PNG or exceed 2 MB before reading them', () => {
    expect(selfieFileProblem({ size: 2 * 1024 * 1024, type: 'image/jpeg' })).toBeNull();
    expect(selfieFileProblem({ size: 2 * 1024 * 1024 + 1, type: 'image/jpeg' })).toMatch(/2 MB/);
    expect(selfieFileProblem({ size: 10, type: 'image/gif' })).toMatch(/JPEG or PNG/);
    expect(selfieFileProblem({ size: 0, type: 'image/png' })).toMatch(/empty/);
  });
  it('strips a data: prefix and recognises PNG and JPEG signatures', () => {
    expect(stripDataUrl('data:image/png;base64,iVBORw0KGgoAAA')).toBe('iVBORw0KGgoAAA');
    expect(imageMimeOf('iVBORw0KGgoAAA')).toBe('image/png');
    expect(imageMimeOf('/9j/4AAQSkZJRg')).toBe('image/jpeg');
  });
  it('needs a number and an image', () => {
    expect(Object.keys(checkFace({ idNumber: '', selfieImage: '', fileName: '' }).errors).sort()).toEqual(['idNumber', 'selfieImage']);
  });
});

describe('address', () => {
  it('requires line 1, city, and both subject names or neither', () => {
    expect(Object.keys(checkAddress(EMPTY_ADDRESS)).sort()).toEqual(['addressLine1', 'city']);
    const half = checkAddress({ ...EMPTY_ADDRESS, addressLine1: 'x', city: 'y', firstName: 'A' });
    expect(half['lastName']).toMatch(/both/);
    expect(toAddressRequest({ ...EMPTY_ADDRESS, addressLine1: 'x', city: 'y', firstName: 'A' })).toEqual({ country: 'NG', addressLine1: 'x', city: 'y' });
  });
});

describe('messages in the form\'s words', () => {
  it("a server's detail about a field is said with the input's label; a message about something else is left alone", () => {
    const msgs = issuesToMessages(
      [
        { field: 'request.validation.firstName', message: 'validation.firstName is required for drivers_license.' },
        { field: 'idNumber', message: 'Too big: expected string to have <=40 characters' },
        { field: 'somethingElse', message: 'somethingElse is odd.' },
      ],
      IDENTITY_FIELDS,
      IDENTITY_LABELS,
    );
    expect(msgs).toEqual({
      firstName: 'First name is required for drivers_license.',
      idNumber: 'Too big: expected string to have <=40 characters',
      general: 'somethingElse is odd.',
    });
    expect(checkAddress({ ...EMPTY_ADDRESS, country: 'GB', addressLine1: 'x', city: 'y' })['postalCode']).toMatch(/^Postal code is required/);
  });
});

describe('detailField', () => {
  it('maps server detail paths onto form fields', () => {
    expect(detailField('request.validation.firstName')).toBe('firstName');
    expect(detailField('subject.lastName')).toBe('lastName');
    expect(detailField('phoneNumber')).toBe('phoneNumber');
  });
});
