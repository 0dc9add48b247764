// The Electron security checklist, asserted on the code that configures the window (no Electron binary needed).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, isAllowedExternal, isTrustedSenderUrl, secureWebPreferences, windowOpenHandler } from '../../src-main/electron/security';

describe('Electron window security', () => {
  it('isolates and sandboxes the renderer', () => {
    const p = secureWebPreferences('/app/preload.mjs')!;
    expect(p.contextIsolation).toBe(true);
    expect(p.sandbox).toBe(true);
    expect(p.nodeIntegration).toBe(false);
    expect(p.nodeIntegrationInWorker).toBe(false);
    expect(p.webSecurity).toBe(true);
    expect(p.allowRunningInsecureContent).toBe(false);
    expect(p.webviewTag).toBe(false);
  });

  it('has a strict content security policy', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('opens only allow-listed http(s) links externally', () => {
    expect(isAllowedExternal('https://github.com/org/repo')).toBe(true);
    expect(isAllowedExternal('file:///etc/passwd')).toBe(false);
    expect(isAllowedExternal('javascript:alert(1)')).toBe(false);
    expect(isAllowedExternal('https://evil.example/')).toBe(false);
    expect(isAllowedExternal('not a url')).toBe(false);
  });

  it('accepts IPC only from the app origin', () => {
    expect(isTrustedSenderUrl('file:///opt/app/out/renderer/index.html', 'file:///opt/app/out/renderer/')).toBe(true);
    expect(isTrustedSenderUrl('https://evil.example/', 'file:///opt/app/out/renderer/')).toBe(false);
  });

  it('denies every new window and hands only allow-listed links to the browser', () => {
    const opened: string[] = [];
    const handler = windowOpenHandler((u) => opened.push(u));
    expect(handler({ url: 'https://github.com/org/repo' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://github.com/org/repo']);
  });

  it('wires the checklist in main.ts: navigation, window.open and permissions are denied', () => {
    const main = readFileSync(new URL('../../src-main/electron/main.ts', import.meta.url), 'utf8');
    // Every window uses the hardened preferences and the shared window.open handler; nothing is ever allowed.
    expect(main).toMatch(/webPreferences:\s*secureWebPreferences\(/);
    expect(main).not.toMatch(/nodeIntegration|contextIsolation|sandbox:/);
    expect(main.match(/setWindowOpenHandler\(windowOpenHandler\(/g)).toHaveLength(2);
    expect(main).not.toMatch(/action:\s*'allow'/);
    expect(main).toContain("'Content-Security-Policy': [CONTENT_SECURITY_POLICY]");
    expect(main).toContain("on('will-navigate', (e) => e.preventDefault())");
    expect(main).toContain('setPermissionRequestHandler((_wc, _perm, cb) => cb(false))');
    expect(main).toContain('requestSingleInstanceLock');
    expect(main).toMatch(/isTrustedSenderUrl\(url, appOrigin\)/);
  });

  it('the preload exposes only the channel map', () => {
    const preload = readFileSync(new URL('../../src-main/electron/preload.ts', import.meta.url), 'utf8');
    expect(preload.match(/exposeInMainWorld/g)).toHaveLength(1);
    expect(preload).toContain('CHANNEL_NAMES');
    expect(preload).not.toMatch(/ipcRenderer\.(send|on)\b/);
  });
});
