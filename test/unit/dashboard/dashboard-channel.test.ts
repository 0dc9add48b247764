// `dashboard:summary` through the console door of a real service: registered by the feature list, input validated,
// and counting checks made through the HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { DashboardSummarySchema } from '../../../src-shared/schemas/dashboard';
import { api, newKey, NG_OK, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
beforeAll(async () => {
  ts = await startTestService();
});
afterAll(async () => {
  await ts.stop();
});

describe('dashboard:summary channel', () => {
  it('counts the API checks of today in the environment asked for', async () => {
    const ok = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: NG_OK });
    expect(ok.status).toBe(200);
    const bad = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, accountNumber: '0000000000' } });
    expect(bad.body.status).toBe('failed');

    // An explicit period start, so a run across UTC midnight cannot split the two checks from "today".
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const res = await dispatch(ts.service.handlers, 'dashboard:summary', { environment: 'sandbox', since });
    if (!res.ok) throw new Error(res.error.message);
    const s = DashboardSummarySchema.parse(res.value);
    expect(s.verifications.byStatus).toMatchObject({ success: 1, failed: 1 });
    expect(s.verifications.successRate).toBe(0.5);
    expect(s.verifications.byCountry).toEqual([{ country: 'NG', total: 2, pending: 0, success: 1, failed: 1, error: 0 }]);

    const live = await dispatch(ts.service.handlers, 'dashboard:summary', { environment: 'live', since });
    expect(live.ok && live.value).toMatchObject({ environment: 'live', verifications: { total: 0 } });
  });

  it('refuses a malformed period with the field named', async () => {
    const res = await dispatch(ts.service.handlers, 'dashboard:summary', { environment: 'sandbox', since: 'yesterday' });
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.error.code).toBe('VALIDATION_ERROR');
      expect(res.error.details?.[0]?.field).toBe('since');
    }
  });
});
