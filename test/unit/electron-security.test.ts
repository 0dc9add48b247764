// The Electron security checklist, asserted on the exact functions main.ts installs (no Electron binary needed):
// hardened webPreferences, CSP, window.open / navigation / permission handlers, the openExternal allow-list, IPC
// sender checks and the app:// file mapping (docs/packaging.md lists each item).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  EXTERNAL_HOSTS,
  isAllowedExternal,
  isTrustedSenderUrl,
  navigationGuard,
  permissionCheckHandler,
  permissionRequestHandler,
  resolveAppRequest,
  secureWebPreferences,
  securityHeaders,
  servableFile,
  windowOpenHandler,
} from '../../src-main/electron/security';

const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));

describe('webPreferences', () => {
  it('isolates and sandboxes the renderer and keeps web security on', () => {
    const p = secureWebPreferences('/app/out/preload/index.cjs');
    expect(p).toMatchObject({
      preload: '/app/out/preload/index.cjs',
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
      disableBlinkFeatures: 'Auxclick',
    });
    expect(p).not.toHaveProperty('enableBlinkFeatures');
    expect(p).not.toHaveProperty('additionalArguments');
  });
});

describe('content security policy', () => {
  const d = directives(CONTENT_SECURITY_POLICY);
  it('allows scripts only from the app itself, never inline or eval', () => {
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|https?:/);
  });
  it('forbids plugins, base rewriting, framing and form posts', () => {
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('frame-src')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
  });
  it('is sent with every app:// response, with nosniff', () => {
    expect(securityHeaders()).toMatchObject({ 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' });
  });
});

describe('openExternal allow-list', () => {
  it('opens https links to allow-listed hosts only', () => {
    expect(isAllowedExternal('https://github.com/org/repo')).toBe(true);
    // Every allow-listed host is a public documentation site served over https; a plain-http link to one would open
    // a page anyone on the network path can rewrite, so it is refused like any other scheme.
    expect(isAllowedExternal('http://github.com/org/repo')).toBe(false);
    expect(isAllowedExternal('http://www.electronjs.org/docs')).toBe(false);
    expect(isAllowedExternal('https://GITHUB.com/x')).toBe(true);
    expect(EXTERNAL_HOSTS.length).toBeGreaterThan(0);
  });
  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<script>1</script>',
    'smb://github.com/share',
    'ms-msdt:/id PCWDiagnostic',
    'https://evil.example/',
    'https://github.com.evil.example/',
    'https://evilgithub.com/',
    'https://github.com@evil.example/',
    'https://user:pw@github.com/',
    'not a url',
    '',
  ])('refuses %s', (url) => {
    expect(isAllowedExternal(url)).toBe(false);
  });
});

describe('window.open and navigation', () => {
  it('never opens a window; only allow-listed links go to the browser', () => {
    const opened: string[] = [];
    const handler = windowOpenHandler((u) => opened.push(u));
    for (const url of ['https://github.com/org/repo', 'https://evil.example/', 'file:///etc/passwd', 'app://console/index.html', 'about:blank']) {
      expect(handler({ url })).toEqual({ action: 'deny' });
    }
    expect(opened).toEqual(['https://github.com/org/repo']);
  });
  it('prevents every navigation, including to the app itself and allow-listed hosts', () => {
    const opened: string[] = [];
    const guard = navigationGuard((u) => opened.push(u));
    for (const url of ['https://evil.example/', 'https://github.com/x', 'app://console/index.html', 'file:///etc/passwd']) {
      let prevented = false;
      guard({ preventDefault: () => (prevented = true), url });
      expect(prevented, url).toBe(true);
    }
    expect(opened).toEqual(['https://github.com/x']);
  });
});

describe('permissions', () => {
  const ask = (permission: string, requestingUrl: string) => {
    let granted: boolean | null = null;
    permissionRequestHandler(null, permission, (g) => (granted = g), { requestingUrl });
    return granted;
  };
  it('denies camera, microphone, geolocation, notifications, midi, HID, serial… from anyone', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'midiSysex', 'hid', 'serial', 'usb', 'openExternal', 'fullscreen', 'clipboard-read', 'display-capture']) {
      expect(ask(p, APP_ENTRY_URL), p).toBe(false);
      expect(permissionCheckHandler(null, p, 'app://console'), p).toBe(false);
    }
  });
  it('grants clipboard writes (the copy buttons) only to the app page', () => {
    expect(ask('clipboard-sanitized-write', APP_ENTRY_URL)).toBe(true);
    expect(ask('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(ask('clipboard-sanitized-write', 'file:///opt/app/out/renderer/index.html')).toBe(false);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', 'app://console')).toBe(true);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', 'https://evil.example')).toBe(false);
  });
  it('denies when the request carries no URL', () => {
    let granted: boolean | null = null;
    permissionRequestHandler(null, 'clipboard-sanitized-write', (g) => (granted = g));
    expect(granted).toBe(false);
  });
});

describe('IPC sender check', () => {
  it('accepts only the app scheme page', () => {
    expect(isTrustedSenderUrl(APP_ENTRY_URL)).toBe(true);
    expect(isTrustedSenderUrl('app://console/index.html#/keys')).toBe(true);
  });
  it.each(['file:///opt/app/out/renderer/index.html', 'https://evil.example/', 'app://other/index.html', 'app://console:8080/', 'app://x@console/', 'http://console/', 'about:blank', ''])(
    'refuses %s',
    (url) => expect(isTrustedSenderUrl(url)).toBe(false),
  );
});

describe('app:// file mapping', () => {
  const root = join('/opt', 'vc', 'out', 'renderer');
  it('serves files under the renderer folder, index.html for the root', () => {
    expect(resolveAppRequest(root, 'app://console/')).toBe(join(root, 'index.html'));
    expect(resolveAppRequest(root, 'app://console/index.html')).toBe(join(root, 'index.html'));
    expect(resolveAppRequest(root, 'app://console/assets/index-abc.js?v=1#x')).toBe(join(root, 'assets', 'index-abc.js'));
  });
  it.each(['app://console/../../../etc/passwd', 'app://console/%2e%2e/%2e%2e/etc/passwd', 'app://console/assets/../../x.js'])(
    'keeps dot segments inside the folder: %s',
    (url) => {
      // The URL parser already resolves dot segments against the root; whatever is left must stay under it.
      const file = resolveAppRequest(root, url);
      expect(file === null || file.startsWith(root + sep)).toBe(true);
    },
  );
  it.each([
    'app://console/assets/..%2f..%2f..%2fetc/passwd',
    'app://console/..%2f..%2f..%2fetc/passwd',
    'app://console/..%5c..%5cwindows',
    'app://console/a%00.js',
    'app://console/%E0%A4%A',
    'app://other/index.html',
    'file:///etc/passwd',
    'https://console/index.html',
  ])('refuses %s', (url) => {
    expect(resolveAppRequest(root, url)).toBeNull();
  });
});

describe('app:// answers only regular files', () => {
  it('a file is served; a directory, the root folder itself or a missing file is null (→ 404)', () => {
    const root = mkdtempSync(join(tmpdir(), 'vc-renderer-'));
    try {
      mkdirSync(join(root, 'assets'));
      writeFileSync(join(root, 'index.html'), '<!doctype html>');
      writeFileSync(join(root, 'assets', 'a.js'), '');
      expect(servableFile(root, 'app://console/')).toBe(join(root, 'index.html'));
      expect(servableFile(root, 'app://console/assets/a.js')).toBe(join(root, 'assets', 'a.js'));
      for (const url of ['app://console/assets', 'app://console/assets/', 'app://console/missing.js', 'app://console/assets/missing/']) {
        expect(servableFile(root, url), url).toBeNull();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
