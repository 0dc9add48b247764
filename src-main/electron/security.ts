// The Electron security checklist as data and small pure functions (no electron import), so unit tests assert the
// exact handlers main.ts installs without a window. docs/packaging.md lists each checklist item and where it lives.
import { statSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import type { BrowserWindowConstructorOptions } from 'electron';

/** The renderer is served from this privileged custom scheme, never from file:// or a remote URL. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'console';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-src 'none'; frame-ancestors 'none'; form-action 'none'";

export function secureWebPreferences(preloadPath: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    // Middle-click opens links in new windows without going through the window.open handler's intent.
    disableBlinkFeatures: 'Auxclick',
    safeDialogs: true,
    spellcheck: false,
  };
}

/**
 * Hosts whose https links the console may open in the user's browser (public documentation only). Plain http is
 * refused: every host here serves https, and an http link could be rewritten on the way.
 */
export const EXTERNAL_HOSTS: readonly string[] = ['github.com', 'www.standardwebhooks.com', 'standardwebhooks.com', 'www.electronjs.org'];

export function isAllowedExternal(url: string, hosts: readonly string[] = EXTERNAL_HOSTS): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:') return false;
  // Credentials in a link are a classic way to make `https://github.com@evil.example` look trusted.
  if (u.username || u.password) return false;
  return hosts.includes(u.hostname.toLowerCase());
}

/** IPC and permissions are honoured only for our own page on the app scheme (not file://, not a remote page). */
export function isTrustedSenderUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && !u.username && !u.password && !u.port;
  } catch {
    return false;
  }
}

/**
 * The window.open handler: never opens a window; an allow-listed link goes to the user's browser instead.
 * Returned as a function of the opener so main.ts and the unit tests use the same code.
 */
export function windowOpenHandler(openExternal: (url: string) => void) {
  return ({ url }: { url: string }): { action: 'deny' } => {
    if (isAllowedExternal(url)) openExternal(url);
    return { action: 'deny' };
  };
}

/**
 * will-navigate / will-redirect: the console is a single page; any navigation away is refused. The URL is read from
 * the event's details (`event.url`); the positional url argument is deprecated since Electron 25.
 */
export function navigationGuard(openExternal: (url: string) => void) {
  return (event: { preventDefault(): void; url: string }): void => {
    event.preventDefault();
    if (isAllowedExternal(event.url)) openExternal(event.url);
  };
}

/** Permissions the console uses: the copy buttons write to the clipboard. Everything else is denied. */
export const GRANTED_PERMISSIONS: readonly string[] = ['clipboard-sanitized-write'];

export function permissionRequestHandler(
  _wc: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details?: { requestingUrl?: string },
): void {
  callback(GRANTED_PERMISSIONS.includes(permission) && isTrustedSenderUrl(details?.requestingUrl ?? ''));
}

export function permissionCheckHandler(_wc: unknown, permission: string, requestingOrigin: string): boolean {
  return GRANTED_PERMISSIONS.includes(permission) && isTrustedSenderUrl(requestingOrigin);
}

/** Response headers for every app-scheme response. */
export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/**
 * Maps an app-scheme request to a file under the built renderer, or null (→ 404). Refuses other hosts, encoded
 * traversal (`%2e%2e`), NUL bytes and anything that would resolve outside `root`.
 */
export function resolveAppRequest(root: string, requestUrl: string): string | null {
  let u: URL;
  try {
    u = new URL(requestUrl);
  } catch {
    return null;
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null;
  let path: string;
  try {
    path = decodeURIComponent(u.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  if (path === '/' || path === '') path = '/index.html';
  const rel = normalize(path.replace(/^\/+/, ''));
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  const file = join(root, rel);
  const back = relative(root, file);
  if (back.startsWith('..') || back.split(sep).includes('..') || isAbsolute(back)) return null;
  return file;
}

/**
 * The file an app-scheme request is answered with: resolveAppRequest's path, and only if it is a regular file. A
 * directory or a missing file is null (→ 404), never a listing or a network error.
 */
export function servableFile(root: string, requestUrl: string, isFile: (p: string) => boolean = (p) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false): string | null {
  const file = resolveAppRequest(root, requestUrl);
  return file && isFile(file) ? file : null;
}
