// Scheme mappings against the simulator (EPC VoP MTCH/CMTC/NMTC/NOAP, Pay.UK CoP reason codes, the generic table
// and its per-provider override) and the cache of definitive answers (source cache, billed, never transient).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { liveProviders } from '../../../src-main/providers/registry';
import { expectBilling, iban, NG, setProvider, startLive, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
beforeEach(async () => {
  env = await startLive();
  await setProvider(env, { id: 'vop', adapter: 'epc-vop', routes: ['account:DE', 'account:FR'] });
  await setProvider(env, { id: 'cop', adapter: 'uk-cop', routes: ['account:GB'] });
  await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*', 'phone:*', 'identity:*'] });
  // Mapping tests ask the same question twice on purpose: the cache would hide the second upstream answer.
  await liveProviders(env.ts.service.rt).config.setCacheTtl('account', 0);
});
afterEach(async () => env.stop());

const DE_OK = 'DE89370400440532013000'; // seeded: Max Mustermann

describe('EPC Verification of Payee (account:DE)', () => {
  it('MTCH → success, the submitted name echoed', async () => {
    const r = await verify(env, 'account', { country: 'DE', accountNumber: DE_OK, accountName: 'max  MUSTERMANN' });
    expect(r).toMatchObject({ status: 'success', verified: true, accountName: 'max  MUSTERMANN', source: 'live' });
    const req = env.sim.requests().at(-1)!;
    expect(req.api).toBe('epc-vop');
    // The EPC inter-PSP API shape and headers (docs/providers.md).
    expect(req.body).toEqual({ party: { name: 'max  MUSTERMANN' }, partyAccount: { iban: DE_OK } });
    expect(req.headers['x-request-timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(req.headers['x-request-id']).toBe(req.idempotencyKey);
    // The upstream id is a UUID derived from our verification id.
    expect(req.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('an IBAN typed with dashes and in lower case is sent in the electronic form', async () => {
    const r = await verify(env, 'account', { country: 'DE', accountNumber: 'de89-3704-0044-0532-0130-00', accountName: 'Max Mustermann' });
    expect(env.sim.requests().at(-1)!.body).toEqual({ party: { name: 'Max Mustermann' }, partyAccount: { iban: DE_OK } });
    expect(r).toMatchObject({ status: 'success', source: 'live' });
  });

  it('CMTC → failed VERIFICATION_FAILED (charged) and the matched name is NOT returned (interface §2.3)', async () => {
    const r = await verify(env, 'account', { country: 'DE', accountNumber: DE_OK, accountName: 'Max Mustermenn' });
    expect(r).toMatchObject({ status: 'failed', error: { code: 'VERIFICATION_FAILED' }, charge: { status: 'charged' } });
    expect(r['error'].message).toContain('close match');
    expect(r['accountName']).toBeUndefined();
    expect(JSON.stringify(r)).not.toContain('Max Mustermann');
    await expectBilling(env, r['id'], false);
  });

  it('NMTC → failed VERIFICATION_FAILED', async () => {
    const r = await verify(env, 'account', { country: 'DE', accountNumber: DE_OK, accountName: 'Erika Musterfrau' });
    expect(r).toMatchObject({ status: 'failed', error: { code: 'VERIFICATION_FAILED', message: 'The account name does not match the name held by the bank.' } });
  });

  it('NOAP → INCONCLUSIVE: status error, reversed', async () => {
    const r = await verify(env, 'account', { country: 'DE', accountNumber: iban('DE', '370400440532010000'), accountName: 'Max Mustermann' });
    expect(r).toMatchObject({ status: 'error', error: { code: 'INCONCLUSIVE' }, charge: { status: 'reversed' } });
    await expectBilling(env, r['id'], true);
  });
});

describe('Pay.UK Confirmation of Payee (account:GB)', () => {
  const GB = (accountNumber: string, accountName: string, extra: Record<string, unknown> = {}) => ({ country: 'GB', bankCode: '200000', accountNumber, accountName, ...extra });

  it('Matched → success; request carries sort code + account, Personal by default', async () => {
    const r = await verify(env, 'account', GB('55779911', 'Jane Smith'));
    expect(r).toMatchObject({ status: 'success', accountName: 'Jane Smith' });
    const req = env.sim.requests().at(-1)!;
    expect(req.body).toEqual({ Data: { SchemeName: 'SortCodeAccountNumber', AccountType: 'Personal', Identification: '20000055779911', Name: 'Jane Smith' } });
    expect(req.idempotencyKey).toBe(r['id']);
  });

  it('a sort code and account number typed with dashes are sent as digits only', async () => {
    const r = await verify(env, 'account', { country: 'GB', bankCode: '20-00-00', accountNumber: '5577-9911', accountName: 'Jane Smith' });
    expect((env.sim.requests().at(-1)!.body as { Data: { Identification: string } }).Data.Identification).toBe('20000055779911');
    expect(r).toMatchObject({ status: 'success', accountName: 'Jane Smith' });
  });

  const CASES: [string, Record<string, unknown>, string, string, string | null][] = [
    ['ANNM', GB('55779911', 'John Brown'), 'failed', 'VERIFICATION_FAILED', 'does not match'],
    ['MBAM', GB('55779911', 'Jane Smyth'), 'failed', 'VERIFICATION_FAILED', 'close match'],
    ['AC01', GB('12340000', 'Jane Smith'), 'failed', 'ACCOUNT_NOT_FOUND', 'does not exist'],
    ['CASS', GB('12347777', 'Jane Smith'), 'failed', 'ACCOUNT_INACTIVE', 'switched'],
    ['OPTO', GB('12348888', 'Jane Smith'), 'error', 'INCONCLUSIVE', null],
    ['ACNS', GB('12349999', 'Jane Smith'), 'error', 'INCONCLUSIVE', null],
    ['SCNS', { ...GB('55779911', 'Jane Smith'), bankCode: '990000' }, 'error', 'INCONCLUSIVE', null],
  ];
  for (const [reason, body, status, code, text] of CASES) {
    it(`${reason} → ${status} ${code}`, async () => {
      const r = await verify(env, 'account', body);
      expect(env.sim.requests().at(-1)!.outcome).toBe(reason);
      expect(r).toMatchObject({ status, error: { code } });
      if (text) expect(r['error'].message).toContain(text);
      expect(r['accountName']).toBeUndefined();
      await expectBilling(env, r['id'], status === 'error');
    });
  }

  it('BANM / PAMM: the name matches but the account type differs → failed, no name returned', async () => {
    const banm = await verify(env, 'account', { country: 'GB', bankCode: '400530', accountNumber: '12345678', accountName: 'Acme Widgets Ltd' });
    expect(env.sim.requests().at(-1)!.outcome).toBe('BANM');
    expect(banm).toMatchObject({ status: 'failed', error: { code: 'VERIFICATION_FAILED' } });
    expect(banm['error'].message).toContain('business account');
    const pamm = await verify(env, 'account', GB('55779911', 'Jane Smyth', { accountHolderType: 'BUSINESS' }));
    expect(env.sim.requests().at(-1)!.outcome).toBe('PAMM');
    expect(pamm['error'].message).toContain('personal account');
    expect(JSON.stringify(pamm)).not.toContain('Jane Smith');
  });
});

describe('generic adapter', () => {
  it('phone and identity answers map onto our fields', async () => {
    const phone = await verify(env, 'phone', { country: 'KE', phoneNumber: '+254712345678' });
    expect(phone).toMatchObject({ status: 'success', source: 'live' });
    expect(env.sim.requests().at(-1)!.path).toBe('/v1/checks/phone');
    const id = await verify(env, 'identity', { country: 'KE', idType: 'national_id', idNumber: '12345678' });
    expect(id).toMatchObject({ status: 'success', firstName: 'John', lastName: 'Doe', dateOfBirth: '1990-01-15' });
  });

  it('a per-provider mapping overrides the default table (here NOT_FOUND treated as INCONCLUSIVE)', async () => {
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], mapping: { NOT_FOUND: { outcome: 'error', code: 'INCONCLUSIVE' } } });
    const r = await verify(env, 'account', NG('0123450000'));
    expect(r).toMatchObject({ status: 'error', error: { code: 'INCONCLUSIVE' }, charge: { status: 'reversed' } });
  });

  it('a contradictory mapping is refused when saved, naming the key and the rule; nothing is saved', async () => {
    const refused = async (adapter: 'generic' | 'epc-vop', mapping: Record<string, unknown>, field: string, text: string) => {
      const err = await setProvider(env, { id: 'x', adapter, routes: ['account:PT'], mapping: mapping as never }).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field }] });
      expect((err as { details: { message: string }[] }).details[0]!.message).toContain(text);
      expect(await liveProviders(env.ts.service.rt).config.get('x')).toBeNull();
    };
    // error means no answer (§1.6, §2.6): a definitive code would reverse the charge of an answer.
    await refused('generic', { NOT_FOUND: { outcome: 'error', code: 'ACCOUNT_NOT_FOUND' } }, 'mapping.NOT_FOUND', 'outcome "error" means no answer');
    await refused('generic', { NO_MATCH: { outcome: 'error', code: 'VERIFICATION_FAILED' } }, 'mapping.NO_MATCH', 'not VERIFICATION_FAILED');
    await refused('generic', { INCONCLUSIVE: { outcome: 'failed', code: 'VERIFICATION_TIMEOUT' } }, 'mapping.INCONCLUSIVE', 'outcome "failed" is a definitive answer');
    // success with a code or message: they were silently dropped.
    await refused('generic', { NO_MATCH: { outcome: 'success', code: 'VERIFICATION_FAILED' } }, 'mapping.NO_MATCH', 'outcome "success" takes no code or message');
    await refused('generic', { MATCH: { outcome: 'success', message: 'ok' } }, 'mapping.MATCH', 'outcome "success" takes no code or message');
    // A key the scheme never answers with (a generic value on an EPC VoP provider) would never apply.
    await refused('epc-vop', { NOT_FOUND: { outcome: 'error', code: 'INCONCLUSIVE' } }, 'mapping.NOT_FOUND', 'not a value the epc-vop adapter answers with');
    await setProvider(env, { id: 'x', adapter: 'epc-vop', routes: ['account:PT'], mapping: { NOAP: { outcome: 'failed', code: 'ACCOUNT_NOT_FOUND' } } });
  });

  it('a mapping saved before these rules does not block a later edit of its provider; a row changed or added is judged (found by the final review)', async () => {
    const reg = liveProviders(env.ts.service.rt);
    await setProvider(env, { id: 'old', adapter: 'uk-cop', routes: ['account:GB'], mapping: { MATCHED: { outcome: 'success' } } });
    // As an older version saved it: a key outside the scheme's set, a row that contradicts itself.
    const legacy = { ACCS: { outcome: 'failed', code: 'ACCOUNT_NOT_FOUND' }, AC01: { outcome: 'error', code: 'ACCOUNT_NOT_FOUND' } };
    await env.ts.service.deps.sql.transaction((tx) => tx.run('UPDATE provider_configs SET mapping = ? WHERE id = ?', [JSON.stringify(legacy), 'old']));
    // The CLI sends the stored mapping back with any edit (a timeout here): kept as it was, it is not judged again.
    const stored = (await reg.config.get('old'))!;
    await setProvider(env, { ...stored, id: 'old', adapter: 'uk-cop', routes: ['account:GB'], mapping: stored.mapping ?? undefined, timeoutMs: 5000 } as never);
    expect((await reg.config.get('old'))!.timeoutMs).toBe(5000);
    // A row changed, or a new one, meets the rules.
    const changed = await setProvider(env, { id: 'old', adapter: 'uk-cop', routes: ['account:GB'], mapping: { ...legacy, ACCS: { outcome: 'failed', code: 'VERIFICATION_FAILED' } } as never }).then(() => null, (e: unknown) => e);
    expect(changed).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'mapping.ACCS' }] });
  });
});

describe('cache of definitive answers', () => {
  it('a cache lifetime past 30 days is refused by the core, for every door (the CLI reached it unchecked)', async () => {
    await expect(liveProviders(env.ts.service.rt).config.setCacheTtl('account', 30 * 86_400 + 1)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'ttlSeconds' }] });
    await expect(liveProviders(env.ts.service.rt).config.setCacheTtl('account', 30 * 86_400)).resolves.toBeDefined();
    await liveProviders(env.ts.service.rt).config.setCacheTtl('account', 0);
  });

  it('a repeat answer comes from the cache (source cache, billed like any answer), without asking the upstream', async () => {
    await liveProviders(env.ts.service.rt).config.setCacheTtl('account', 3600);
    const first = await verify(env, 'account', NG());
    expect(first['source']).toBe('live');
    const calls = env.sim.requests().length;
    // Case and spacing do not make a different question.
    const second = await verify(env, 'account', { country: 'ng', accountNumber: ' 0123456789', bankCode: '058' });
    expect(second).toMatchObject({ status: 'success', source: 'cache', accountName: 'Adaeze Nwosu', charge: { status: 'charged' } });
    expect(env.sim.requests().length).toBe(calls);
    await expectBilling(env, second['id'], false);
    // A definitive failure is cached too.
    const nf = await verify(env, 'account', NG('0123450000'));
    const nf2 = await verify(env, 'account', NG('0123450000'));
    expect([nf['source'], nf2['source'], nf2['error'].code]).toEqual(['live', 'cache', 'ACCOUNT_NOT_FOUND']);
  });

  it('transient answers and INCONCLUSIVE are never cached', async () => {
    await liveProviders(env.ts.service.rt).config.setCacheTtl('account', 3600);
    env.sim.setFault('status=503', 3);
    const a = await verify(env, 'account', NG());
    expect(a['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    const b = await verify(env, 'account', NG());
    expect(b).toMatchObject({ status: 'success', source: 'live' });
    const i1 = await verify(env, 'account', NG('0123459999'));
    const i2 = await verify(env, 'account', NG('0123459999'));
    expect([i1['error'].code, i2['error'].code, i2['source']]).toEqual(['INCONCLUSIVE', 'INCONCLUSIVE', 'live']);
  });

  it('lowering the TTL applies to every entry: one younger than the new TTL is not served past it', async () => {
    await env.stop();
    const clock = new ManualClock(Date.now());
    env = await startLive({ clock });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'] });
    const config = liveProviders(env.ts.service.rt).config;
    await config.setCacheTtl('account', 3600);
    expect((await verify(env, 'account', NG()))['source']).toBe('live');
    clock.advance(30_000);
    await config.setCacheTtl('account', 60); // the entry is 30 s old: it stays, but only for 30 s more
    expect((await verify(env, 'account', NG()))['source']).toBe('cache');
    clock.advance(40_000); // 70 s old: past the new TTL
    expect((await verify(env, 'account', NG()))['source']).toBe('live');
  });

  it('TTL 0 switches the cache off for the kind', async () => {
    const a = await verify(env, 'account', NG());
    const b = await verify(env, 'account', NG());
    expect([a['source'], b['source']]).toEqual(['live', 'live']);
  });
});
