// The audit export as a download from the web door (GET /console/audit/export, docs/audit.md): the same file as the
// console channel's, byte for byte (CSV with the byte order mark the console's downloads carry), written to the socket a
// slice at a time; refused without a session, from another site, and for a format it does not know; run as every
// console call is (consoleCall: a disk fault while it reads answers 503 STORAGE_UNAVAILABLE, as the channel does). Roles
// are in team-sign-in.test.ts; the desktop app's download in app-download.test.ts. Real service, real HTTP, a log of
// more than one slice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textSlices } from '../../../src-main/console/audit-download';
import { appendAudit } from '../../../src-main/core/audit/audit-log';
import { ManualClock } from '../../../src-main/core/clock';
import { dispatch } from '../../../src-main/console/handlers';
import { startTestService, type TestService } from '../../helpers/harness';
import { attachmentDisposition } from '../../../src-main/console/content-disposition';

const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' } as const;

let ts: TestService;
let cookie: string;
/** Faked so that the channel's file and the download carry the same export time. */
const clock = new ManualClock();

beforeAll(async () => {
  ts = await startTestService({ webConsole: true, clock });
  const origin = `http://127.0.0.1:${ts.port}`;
  const token = new URL(ts.service.consoleUrl()!).hash.replace(/^#token=/, '');
  const s = await fetch(`${ts.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  cookie = (s.headers.get('set-cookie') ?? '').split(';')[0]!;
  await s.text();
  // Enough entries for a file of several slices (1 MiB each), with text outside the BMP in every entry.
  const deps = ts.service.deps;
  await deps.sql.transaction(async (tx) => {
    for (let i = 0; i < 1_500; i++) {
      await appendAudit({ ...deps, sql: tx }, ts.org!.organizationId, { action: 'key.created', target: { type: 'apiKey', id: `key_${i}` }, detail: { name: `clé 🔑 ${i} ${'x'.repeat(700)}` } });
    }
  });
}, 120_000);
afterAll(async () => {
  await ts.stop();
});

const download = (format: string, headers: Record<string, string> = { cookie, ...SAME_ORIGIN }) => fetch(`${ts.url}/console/audit/export?format=${format}`, { headers });

describe('the audit export as a download', () => {
  it('is the channel’s file, byte for byte, in both formats', async () => {
    for (const format of ['json', 'csv'] as const) {
      const channel = await dispatch(ts.service.handlers, 'audit:export', { format });
      const x = (channel as { value: { filename: string; content: string } }).value;
      const r = await download(format);
      expect(r.status).toBe(200);
      const bytes = Buffer.from(await r.arrayBuffer());
      const expected = format === 'csv' ? `\uFEFF${x.content}` : x.content;
      expect(x.content.length, "more than one slice of 1 MiB characters").toBeGreaterThan(1 << 20);
      expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
      expect(r.headers.get('content-type')).toBe(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      expect(r.headers.get('content-disposition')).toBe(attachmentDisposition(x.filename));
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('is refused without a session, from another site, and for a format it does not know', async () => {
    const anon = await download('json', { ...SAME_ORIGIN });
    expect(anon.status).toBe(401);
    expect(await anon.json()).toMatchObject({ code: 'TOKEN_INVALID' });
    for (const site of ['cross-site', 'same-site']) {
      const foreign = await download('json', { cookie, 'sec-fetch-site': site });
      expect(foreign.status).toBe(403);
      await foreign.text();
    }
    // No HEAD: it would build the whole file to send none of it.
    const head = await fetch(`${ts.url}/console/audit/export?format=json`, { method: 'HEAD', headers: { cookie, ...SAME_ORIGIN } });
    expect(head.status).not.toBe(200);
    const odd = await download('xml');
    expect(odd.status).toBe(422);
    expect(await odd.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'format' }] });
  });

  // Last: the fault leaves the store's health degraded until the next write.
  it('runs as a console call: a disk fault while the export reads is 503 STORAGE_UNAVAILABLE, as the channel says, not a 500', async () => {
    const deps = ts.service.deps;
    const before = deps.longReads;
    // What a read on the reader thread rejects with when the disk fails under it (store/reader-thread.ts).
    const diskError = () => Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' }));
    deps.longReads = { get: diskError, all: diskError };
    try {
      const channel = await dispatch(ts.service.handlers, 'audit:export', { format: 'csv' });
      expect(channel).toMatchObject({ ok: false, error: { code: 'STORAGE_UNAVAILABLE' } });
      const r = await download('csv');
      const body = (await r.json()) as { code: string; message: string };
      expect(r.status, JSON.stringify(body)).toBe(503);
      expect(body).toEqual({ ...(channel as { error: object }).error, statusCode: 503 });
      expect(body.message).toContain('input/output error');
      expect(r.headers.get('content-disposition')).toBeNull();
    } finally {
      if (before) deps.longReads = before;
      else delete deps.longReads;
    }
  });
});

describe('textSlices', () => {
  it('gives back the text whole for every slice size, never splitting a surrogate pair', async () => {
    const text = 'a🔑b🔑🔑c'.repeat(7);
    for (let size = 1; size <= 12; size++) {
      const parts: string[] = [];
      for await (const chunk of textSlices('\uFEFF', [text.slice(0, 4), text.slice(4)], size)) parts.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
      expect(parts.join(''), `slice ${size}`).toBe(`\uFEFF${text}`);
      expect(Buffer.concat(parts.map((p) => Buffer.from(p, 'utf8'))).toString('utf8'), `slice ${size}`).toBe(`\uFEFF${text}`);
    }
  });
});
