// GET /verify and GET /verify/{id} send the stored record JSON without the response serializer. That is only
// safe while every stored record already is the documented shape: this posts every sandbox fixture of every
// kind (sync, async, failures) and checks each read is exactly what the zod response schema would have sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEnvelope } from '../../../src-shared/schemas/common';
import { VerificationRecordSchema } from '../../../src-shared/schemas/verification';
import { api, startTestService, type TestService } from '../../helpers/harness';

interface Fixture {
  kind: string;
  request: Record<string, unknown>;
}

let ts: TestService;
const ids: string[] = [];

beforeAll(async () => {
  ts = await startTestService();
  const cat = await api<{ data: Fixture[] }>(ts.url, 'GET', '/sandbox/fixtures', { key: ts.sandboxKey });
  expect(cat.status).toBe(200);
  const fixtures = cat.body.data.filter((f) => ['account', 'phone', 'identity', 'face', 'address'].includes(f.kind));
  expect(fixtures.length).toBeGreaterThan(10);
  let n = 0;
  for (const f of fixtures) {
    for (const mode of [undefined, 'async'] as const) {
      const body = mode ? { ...f.request, mode } : f.request;
      const res = await api<{ id?: string }>(ts.url, 'POST', `/verify/${f.kind}`, { key: ts.sandboxKey, idem: `sr-${++n}`, body });
      if (res.body.id) ids.push(res.body.id);
    }
  }
  await ts.service.worker.drain();
}, 120_000);

afterAll(async () => {
  await ts.stop();
});

describe('stored reads', () => {
  it('every page of GET /verify is byte-for-byte valid and equal to the schema-encoded envelope', async () => {
    const Envelope = listEnvelope(VerificationRecordSchema);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await api(ts.url, 'GET', `/verify?limit=100&offset=${offset}`, { key: ts.sandboxKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // What the route's serializer would have sent: parsed, unknown keys stripped, encoded.
      expect(res.body).toEqual(Envelope.encode(Envelope.parse(res.body)));
      expect(res.body.pagination).toEqual({ total: ids.length, limit: 100, offset, hasMore: offset + res.body.data.length < ids.length });
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      if (!res.body.pagination.hasMore) break;
    }
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen.some((id) => id)).toBe(true);
  });

  it('filters and an empty page still form a valid envelope', async () => {
    const res = await api(ts.url, 'GET', '/verify?status=failed&limit=5', { key: ts.sandboxKey });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((r: { status: string }) => r.status === 'failed')).toBe(true);
    const empty = await api(ts.url, 'GET', '/verify?offset=1000000', { key: ts.sandboxKey });
    expect(empty.body).toEqual({ data: [], pagination: { total: ids.length, limit: 20, offset: 1_000_000, hasMore: false } });
  });

  it('GET /verify/{id} sends the record as the schema would, and only in its own scope', async () => {
    for (const id of ids) {
      const res = await api(ts.url, 'GET', `/verify/${id}`, { key: ts.sandboxKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(VerificationRecordSchema.encode(VerificationRecordSchema.parse(res.body)));
      expect(res.body.id).toBe(id);
    }
    const other = await api(ts.url, 'GET', `/verify/${ids[0]}`, { key: ts.liveKey });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('NOT_FOUND');
    const live = await api(ts.url, 'GET', '/verify', { key: ts.liveKey });
    expect(live.body.pagination.total).toBe(0);
  });
});
