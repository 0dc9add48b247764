// The desktop app's audit export (app://console/audit/export, src-main/electron/app-downloads.ts, docs/audit.md): what
// the main process's app-scheme handler answers, driven with the real service of a desktop start on a temp folder. The
// channel's file, byte for byte (the CSV's byte order mark included), as a stream rather than one IPC message; before
// set-up and for a format it does not know, the channel's own error; refused from another site and while the app is not
// running; any other address is left to the renderer's files. The wiring in main.ts: electron-main.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit } from '../../../src-main/core/audit/audit-log';
import { ManualClock } from '../../../src-main/core/clock';
import { dispatch } from '../../../src-main/console/handlers';
import { answerAppDownload } from '../../../src-main/electron/app-downloads';
import { startTestService, type TestService } from '../../helpers/harness';
import { attachmentDisposition } from '../../../src-main/console/content-disposition';

/** Faked so that the channel's file and the download carry the same export time. */
const clock = new ManualClock();
let ts: TestService;
let fresh: TestService;

beforeAll(async () => {
  [ts, fresh] = await Promise.all([startTestService({ door: 'electron', clock }), startTestService({ door: 'electron', bootstrap: false })]);
  const deps = ts.service.deps;
  await deps.sql.transaction(async (tx) => {
    for (let i = 0; i < 200; i++) {
      await appendAudit({ ...deps, sql: tx }, ts.org!.organizationId, { action: 'key.created', target: { type: 'apiKey', id: `key_${i}` }, detail: { name: `clé 🔑 ${i}` } });
    }
  });
}, 120_000);
afterAll(async () => {
  await Promise.all([ts?.stop(), fresh?.stop()]);
});

const get = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe('the audit export over the app scheme', () => {
  it('is the channel’s file, byte for byte, in both formats, as a stream with the download’s headers', async () => {
    for (const format of ['json', 'csv'] as const) {
      const channel = await dispatch(ts.service.handlers, 'audit:export', { format });
      const x = (channel as { value: { filename: string; content: string } }).value;
      const r = (await answerAppDownload(get(`app://console/audit/export?format=${format}`, { 'sec-fetch-site': 'same-origin' }), ts.service))!;
      expect(r.status).toBe(200);
      expect(r.body, 'a stream, not a string built in advance').toBeInstanceOf(ReadableStream);
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(bytes.equals(Buffer.from(format === 'csv' ? `\uFEFF${x.content}` : x.content, 'utf8'))).toBe(true);
      expect(x.content).toContain('clé 🔑 199');
      expect(r.headers.get('content-type')).toBe(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      expect(r.headers.get('content-disposition')).toBe(attachmentDisposition(x.filename));
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
  });

  it('answers the channel’s error, as the web door’s body: before set-up, and for a format it does not know', async () => {
    const channel = await dispatch(fresh.service.handlers, 'audit:export', { format: 'csv' });
    expect(channel).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: 'Set up the organization first.' } });
    const early = (await answerAppDownload(get('app://console/audit/export?format=csv'), fresh.service))!;
    expect(early.status).toBe(403);
    expect(await early.json()).toEqual({ ...(channel as { error: object }).error, statusCode: 403 });
    expect(early.headers.get('content-disposition')).toBeNull();
    for (const query of ['?format=xml', '']) {
      const odd = (await answerAppDownload(get(`app://console/audit/export${query}`), ts.service))!;
      expect(odd.status, query).toBe(422);
      expect(await odd.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'format' }] });
    }
  });

  it('is refused from another site and while the app is not running', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const foreign = (await answerAppDownload(get('app://console/audit/export?format=json', { 'sec-fetch-site': site }), ts.service))!;
      expect(foreign.status, site).toBe(403);
      expect(await foreign.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
    const quitting = (await answerAppDownload(get('app://console/audit/export?format=json'), null))!;
    expect(quitting.status).toBe(503);
    expect(await quitting.json()).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('leaves every other request to the renderer’s files (a HEAD too: it would build the file to send none of it)', async () => {
    for (const url of ['app://console/index.html', 'app://console/audit/export/x?format=csv', 'app://console/audit', 'app://other/audit/export?format=csv', 'https://console/audit/export?format=csv']) {
      expect(await answerAppDownload(get(url), ts.service), url).toBeNull();
    }
    expect(await answerAppDownload(new Request('app://console/audit/export?format=csv', { method: 'HEAD' }), ts.service)).toBeNull();
  });
});
