// The files the desktop console downloads from its own origin, app://console/ (app-protocol.ts), the way the web
// console downloads them from the web door (fetchDownload in src-renderer/client/bridge.ts): today the audit export,
// streamed a slice at a time, where the `audit:export` channel built the whole file (tens of MB on a large store) as
// one string and sent it in one IPC message. No electron import, so tests drive it with the real service.
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { auditExportDownload } from '../console/audit-download';
import type { RunningService } from '../service';
import { APP_HOST, APP_SCHEME, securityHeaders } from './security';

/** Where the audit export is on the app scheme, as `GET /console/audit/export` is on the web door. */
export const APP_AUDIT_EXPORT_PATH = '/audit/export';

/** What a download needs of the running service. */
export type DownloadService = Pick<RunningService, 'handlers' | 'auditExportFile' | 'deps'>;

function errorResponse(status: number, error: { code: string; message: string }): Response {
  // The web door's error body: fetchDownload turns it into the page's error message, never a saved file.
  return Response.json({ ...error, statusCode: status }, { status, headers: securityHeaders() });
}

/**
 * The answer to an app-scheme request for a download, or null when it asks for something else (a file of the
 * renderer). `service` is null while the app is not running, and the download is refused then, as IPC calls are.
 */
export async function answerAppDownload(req: Request, service: DownloadService | null): Promise<Response | null> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return null;
  }
  // GET only, as the web door: a HEAD would build the whole export to send none of it (it gets the renderer's 404).
  if (req.method !== 'GET' || url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.pathname !== APP_AUDIT_EXPORT_PATH) return null;
  // The scheme is not CORS-enabled and the window can neither navigate nor open another, so only our page can ask;
  // should another site's request ever reach here, its Fetch Metadata says so and it is refused as on the web door.
  const site = req.headers.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') return errorResponse(403, { code: 'FORBIDDEN', message: 'Cross-origin console access is refused.' });
  if (!service) return errorResponse(503, { code: 'UNAVAILABLE', message: 'The app is quitting.' });
  const file = await auditExportDownload(service.handlers, service.auditExportFile, url.searchParams.get('format') ?? undefined, service.deps.log);
  if (!file.ok) return errorResponse(file.status, file.error);
  const headers = new Headers(file.headers);
  for (const [k, v] of Object.entries(securityHeaders())) headers.set(k, v);
  return new Response(Readable.toWeb(file.body) as ReadableStream<Uint8Array>, { status: 200, headers });
}
