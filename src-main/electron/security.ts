// The Electron security checklist as data and small functions, so unit tests can assert it without a window.
import type { BrowserWindowConstructorOptions } from 'electron';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export function secureWebPreferences(preloadPath: string): BrowserWindowConstructorOptions['webPreferences'] {
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
    spellcheck: false,
  };
}

/** Links the console may open in the user's browser (documentation only). */
export const EXTERNAL_ALLOWLIST = [/^https:\/\/github\.com\//, /^https:\/\/standardwebhooks\.com\//];

export function isAllowedExternal(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && EXTERNAL_ALLOWLIST.some((re) => re.test(url));
  } catch {
    return false;
  }
}

/** IPC is accepted only from our own top-level page loaded from the app protocol or the built files. */
export function isTrustedSenderUrl(url: string, appOrigin: string): boolean {
  return url.startsWith(appOrigin);
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
