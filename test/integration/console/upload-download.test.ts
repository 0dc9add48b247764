// The web console's file door: a CSV dropped in the browser is streamed to the data folder (same origin and a
// console session only), previewed and checked as a batch, and its result files download through the bridge.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchJobsFor } from '../../../src-main/core/routing/batch-jobs';
import { safeUploadName } from '../../../src-main/console/web-bridge';
import { startTestService, type TestService } from '../../helpers/harness';

/** What a browser sends on a same-origin download link (Fetch Metadata). */
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' } as const;

const CSV = ['note,swift_code', 'ok,DEUTDEFF', 'bad,DEUT12FF', '"=cmd|x",UNKNGB2L'].join('\r\n');

let ts: TestService;
let origin: string;
let cookie: string;

beforeAll(async () => {
  ts = await startTestService({ webConsole: true });
  origin = `http://127.0.0.1:${ts.port}`;
  const token = new URL(ts.service.consoleUrl()!).hash.replace(/^#token=/, '');
  const s = await fetch(`${ts.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  cookie = (s.headers.get('set-cookie') ?? '').split(';')[0]!;
  await s.text();
});
afterAll(async () => {
  await ts.stop();
});

function upload(body: string | Buffer, headers: Record<string, string>, name = 'payees.csv') {
  return fetch(`${ts.url}/console/upload?name=${encodeURIComponent(name)}`, { method: 'POST', headers: { 'content-type': 'text/csv', ...headers }, body });
}

async function bridge(channel: string, input: unknown) {
  const r = await fetch(`${ts.url}/console/bridge/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', origin, cookie }, body: JSON.stringify(input) });
  return (await r.json()) as { ok: boolean; value: Record<string, unknown> };
}

describe('console uploads and downloads', () => {
  it('refuses uploads from another origin or without a console session', async () => {
    const cross = await upload(CSV, { origin: 'http://evil.example', cookie });
    expect(cross.status).toBe(403);
    const anon = await upload(CSV, { origin });
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { code: string }).code).toBe('TOKEN_INVALID');
  });

  it('streams a dropped file into the data folder, then previews, runs and downloads it', async () => {
    const up = await upload(Buffer.from(`\uFEFF${CSV}`), { origin, cookie }, '../../etc/passwd payees.csv');
    expect(up.status).toBe(200);
    const { path, bytes } = (await up.json()) as { path: string; bytes: number };
    expect(bytes).toBe(Buffer.byteLength(`\uFEFF${CSV}`));
    // Kept inside the data folder under a folder of its own, whatever name the browser sent.
    expect(dirname(dirname(path))).toBe(join(ts.dataDir, 'uploads'));
    expect(path.endsWith('passwd payees.csv')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`\uFEFF${CSV}`);

    const preview = await bridge('batch:preview', { path });
    expect(preview.ok).toBe(true);
    expect(preview.value['headers']).toEqual(['note', 'swift_code']);

    const started = await bridge('batch:start', { path, environment: 'sandbox' });
    expect(started.ok).toBe(true);
    const id = started.value['id'] as string;
    const job = await batchJobsFor(ts.service.deps, ts.dataDir).wait(ts.org!.organizationId, id);
    expect(job).toMatchObject({ status: 'done', rows: 3, invalid: 2, inputName: 'passwd payees.csv' });

    const anon = await fetch(`${ts.url}/console/batch/${id}/download`, { headers: SAME_ORIGIN });
    expect(anon.status).toBe(401);
    await anon.text();
    // Another site cannot start the download with the user's cookie; a typed address ('none') can.
    for (const site of ['cross-site', 'same-site']) {
      const foreign = await fetch(`${ts.url}/console/batch/${id}/download`, { headers: { cookie, 'sec-fetch-site': site } });
      expect(foreign.status).toBe(403);
      await foreign.text();
    }
    const fromOtherOrigin = await fetch(`${ts.url}/console/batch/${id}/download`, { headers: { cookie, origin: 'http://evil.test' } });
    expect(fromOtherOrigin.status).toBe(403);
    await fromOtherOrigin.text();
    const typed = await fetch(`${ts.url}/console/batch/${id}/download`, { headers: { cookie, 'sec-fetch-site': 'none' } });
    expect(typed.status).toBe(200);
    await typed.text();

    const all = await fetch(`${ts.url}/console/batch/${id}/download`, { headers: { cookie, ...SAME_ORIGIN } });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-disposition')).toBe(`attachment; filename="passwd_payees-results.csv"; filename*=UTF-8''passwd%20payees-results.csv`);
    const allText = await all.text();
    expect(allText).toBe(readFileSync(job.resultPath!, 'utf8'));
    expect(allText).toContain('DEUTDEFF');
    // Formula cells are neutralised in what the analyst downloads.
    expect(allText).not.toMatch(/(^|,)"?=cmd/m);

    const invalid = await fetch(`${ts.url}/console/batch/${id}/download?rows=invalid`, { headers: { cookie, ...SAME_ORIGIN } });
    expect(invalid.status).toBe(200);
    const invalidText = await invalid.text();
    expect(invalidText).not.toContain('DEUTDEFF');
    expect(invalidText).toContain('DEUT12FF');

    const missing = await fetch(`${ts.url}/console/batch/bat_nope/download`, { headers: { cookie, ...SAME_ORIGIN } });
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it('names uploads safely', () => {
    expect(safeUploadName('..')).toBe('upload.csv');
    expect(safeUploadName(undefined)).toBe('upload.csv');
    expect(safeUploadName('C:\\Users\\me\\bics.csv')).toBe('bics.csv');
    expect(safeUploadName('a\u0000b<>.csv')).toBe('a_b__.csv');
    expect(existsSync(join(ts.dataDir, 'uploads'))).toBe(true);
  });
});
