// Decisions §1: every 422 carries `details`, and the FIX_INPUT hint promises field details only when the body has
// them. Checked on the catalogue (every 422 code, thrown without details) and over real HTTP for the three codes
// that used to come bare (issue 18 item 2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, FIX_FIELDS_HINT, HTTP_ERRORS, type HttpErrorCode } from '../../src-shared/errors';
import { api, startTestService, type TestService } from '../helpers/harness';

describe('every 422 carries details', () => {
  it('the catalogue gives each 422 code a field detail even when the thrower names none', () => {
    const codes = (Object.keys(HTTP_ERRORS) as HttpErrorCode[]).filter((c) => HTTP_ERRORS[c].status === 422);
    expect(codes.length).toBeGreaterThanOrEqual(7);
    for (const code of codes) {
      const body = errorBody(code);
      expect(body.details, code).toBeDefined();
      expect(body.details!.length, code).toBeGreaterThan(0);
      for (const d of body.details!) expect(d.field.length * d.message.length, code).toBeGreaterThan(0);
      expect(body.action?.hint, code).toBe(FIX_FIELDS_HINT);
    }
  });

  it('the generic FIX_INPUT hint of a body without details does not mention details', () => {
    for (const code of ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'HEADERS_TOO_LARGE'] as const) {
      const body = errorBody(code);
      expect(body.details).toBeUndefined();
      expect(body.action?.hint, code).not.toMatch(/details/);
    }
  });

  let ts: TestService;
  beforeAll(async () => {
    ts = await startTestService();
  });
  afterAll(async () => ts?.stop());

  const account = { country: 'NG', accountNumber: '0123456789', bankCode: '058' };

  it('IDEMPOTENCY_KEY_REQUIRED names the header', async () => {
    const r = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, body: account });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(r.body.details).toEqual([{ field: 'Idempotency-Key', message: expect.stringMatching(/required/) }]);
    expect(r.body.action.hint).toBe(FIX_FIELDS_HINT);
  });

  it('IDEMPOTENCY_KEY_INVALID says what is wrong with the key', async () => {
    const long = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, body: account, idem: 'k'.repeat(300) });
    expect(long.status).toBe(422);
    expect(long.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    expect(long.body.details).toEqual([{ field: 'Idempotency-Key', message: 'is 300 characters long; at most 255' }]);
    const spaces = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, body: account, idem: '   ' });
    expect(spaces.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    expect(spaces.body.details[0].field).toBe('Idempotency-Key');
    expect(spaces.body.details[0].message.length).toBeGreaterThan(0);
  });

  it('BATCH_TOO_LARGE counts the items', async () => {
    const items = Array.from({ length: 101 }, () => ({ type: 'bic', bic: 'DEUTDEFF' }));
    const r = await api(ts.url, 'POST', '/verifications/batch', { key: ts.sandboxKey, body: { items } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('BATCH_TOO_LARGE');
    expect(r.body.details).toEqual([{ field: 'items', message: 'holds 101 items; split it into batches of at most 100' }]);
  });
});
