// Live checks of the kinds beyond account through the generic adapter, against the simulator over real sockets:
// what each kind sends upstream (docs/providers.md, "The generic HTTPS/JSON protocol") and how its answer maps.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectBilling, setProvider, startLive, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
beforeEach(async () => {
  env = await startLive({}, ['face', 'phone:KE']);
  await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['face:*', 'phone:*'] });
});
afterEach(async () => env.stop());

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A PNG (trailing bytes appended) whose SHA-256 starts with `prefix`: the simulator's face rule keys on it. */
function pngWithDigest(want: (hex: string) => boolean): Buffer {
  for (let i = 0; ; i++) {
    const b = Buffer.concat([PNG, Buffer.from(String(i))]);
    if (want(sha256(b))) return b;
  }
}

describe('face (generic)', () => {
  it('sends idNumber and the selfie digest (never the image); a seeded card with a matching face is success', async () => {
    const img = pngWithDigest((h) => !h.startsWith('ff'));
    const r = await verify(env, 'face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: img.toString('base64') });
    const req = env.sim.requests().at(-1)!;
    expect(req.body).toMatchObject({ kind: 'face', country: 'GH', query: { idNumber: 'GHA-123456789-0', imageSha256: sha256(img) } });
    expect(JSON.stringify(req.body)).not.toContain(img.toString('base64').slice(0, 40));
    expect(req.outcome).toBe('MATCH');
    expect(r).toMatchObject({ status: 'success', verified: true, source: 'live' });
    await expectBilling(env, r['id'], false);
  });
  it('a face that does not match is failed FACE_MATCH_FAILED "Facial verification did not match." (interface §7.3 rule 4), charged', async () => {
    const img = pngWithDigest((h) => h.startsWith('ff'));
    const r = await verify(env, 'face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: img.toString('base64') });
    expect(env.sim.requests().at(-1)!.outcome).toBe('NO_MATCH');
    expect(r).toMatchObject({ status: 'failed', verified: false, error: { code: 'FACE_MATCH_FAILED', message: 'Facial verification did not match.' } });
    await expectBilling(env, r['id'], false);
  });
});

describe('phone (generic)', () => {
  it('sends the normalised E.164 number, however it was typed; the cache holds one entry for the three spellings', async () => {
    const first = await verify(env, 'phone', { country: 'KE', phoneNumber: '0712345678' });
    expect(env.sim.requests().map((r) => (r.body as { query: unknown }).query)).toEqual([{ phoneNumber: '+254712345678' }]);
    expect(first).toMatchObject({ status: 'success', source: 'live', fullName: 'Wanjiru Kamau' });
    for (const phoneNumber of ['254712345678', '+254712345678', '+254 712 345 678']) {
      const again = await verify(env, 'phone', { country: 'KE', phoneNumber });
      expect(again).toMatchObject({ status: 'success', source: 'cache', fullName: 'Wanjiru Kamau' });
    }
    expect(env.sim.requests()).toHaveLength(1);
  });
});
