// The `app://console/` scheme that serves the built renderer (Electron checklist: custom protocol instead of
// file://, which would give the page file-system-wide origin privileges). Paths are confined to the renderer folder;
// besides its files, the scheme serves the downloads the main process streams (app-downloads.ts).
import { net, protocol, type Session } from 'electron';
import { pathToFileURL } from 'node:url';
import { APP_SCHEME, securityHeaders, servableFile } from './security';

/** Must run before app 'ready'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** `downloads` answers the requests for a file the main process streams (app-downloads.ts), null for the others. */
export function serveRenderer(ses: Session, rendererRoot: string, downloads: (req: Request) => Promise<Response | null> = async () => null): void {
  ses.protocol.handle(APP_SCHEME, async (req) => {
    const download = await downloads(req);
    if (download) return download;
    // A regular file under the renderer folder, or 404: never a directory listing, never a network error.
    const file = req.method === 'GET' || req.method === 'HEAD' ? servableFile(rendererRoot, req.url) : null;
    if (!file) return new Response('Not found', { status: 404, headers: securityHeaders() });
    const res = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(res.headers);
    for (const [k, v] of Object.entries(securityHeaders())) headers.set(k, v);
    return new Response(res.body, { status: res.status, headers });
  });
}
