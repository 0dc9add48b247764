// The typed console client: one `invoke` over whichever door the page was opened through (Electron preload or
// the headless web bridge), and `call` which turns a failed result into a ConsoleError for UI code.
import { downloadFilename } from './download-name';
import type { BridgeError, BridgeResult, ChannelInput, ChannelName, ChannelOutput } from '../../src-shared/channels';

export class ConsoleError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly details: { field: string; message: string }[];

  constructor(error: BridgeError) {
    super(error.message);
    this.name = 'ConsoleError';
    this.code = error.code;
    this.hint = error.hint;
    this.details = error.details ?? [];
  }
}

/** Thrown by `startSession` when the one-time link was used already; the app shows a full-page message. */
export class SessionExpiredError extends Error {
  constructor() {
    super('This console link was already used or has expired.');
    this.name = 'SessionExpiredError';
  }
}

/** Thrown by `startSession` on a team server when nobody is signed in: the app shows the sign-in page. */
export class SignInRequiredError extends Error {
  constructor(message = 'Sign in to use the console.') {
    super(message);
    this.name = 'SignInRequiredError';
  }
}

/** Why the session went away: a spent one-time link, a deliberate sign-out, a team session that ended. */
type SessionListener = (reason: 'expired' | 'signed-out' | 'ended') => void;
const expiredListeners = new Set<SessionListener>();

/** Lets the app switch to the expired-link screen if the web session is lost after start. */
export function onSessionExpired(fn: SessionListener): () => void {
  expiredListeners.add(fn);
  return () => expiredListeners.delete(fn);
}

export function isElectron(): boolean {
  return typeof window !== 'undefined' && typeof window.vc?.invoke === 'function';
}

let session: Promise<void> | null = null;

/**
 * Exchanges the `#token=` fragment for the session cookie. Without a token the call still succeeds when the
 * browser already holds a session (a reload), so only a spent or missing link ends in SessionExpiredError.
 */
export function startSession(): Promise<void> {
  if (isElectron()) return Promise.resolve();
  session ??= (async () => {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    const token = match?.[1] ? decodeURIComponent(match[1]) : '';
    const res = await fetch('session', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    // The token is single-use: drop it from the address bar and history either way.
    if (match) history.replaceState(null, '', location.pathname + location.search);
    if (res.status === 401) {
      const body = (await res.json().catch(() => ({}))) as { code?: unknown };
      // Forget this attempt: after signing in, the next call asks again.
      session = null;
      throw body.code === 'SIGN_IN_REQUIRED' ? new SignInRequiredError() : new SessionExpiredError();
    }
    if (!res.ok) throw new ConsoleError({ code: 'SESSION_FAILED', message: `The console could not start a session (HTTP ${res.status}).` });
  })();
  return session;
}

type Failed = { ok: false; error: BridgeError };

function networkError(): Failed {
  return {
    ok: false,
    error: { code: 'NETWORK_ERROR', message: 'The console could not reach the service.', hint: 'Check that the service is still running, then retry.' },
  };
}

async function webInvoke(channel: string, input: unknown): Promise<BridgeResult<unknown>> {
  await startSession();
  let res: Response;
  try {
    res = await fetch(`bridge/${encodeURIComponent(channel)}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    return networkError();
  }
  if (res.status === 401) return sessionEnded(res);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return networkError();
  }
  if (body && typeof body === 'object' && 'ok' in body) return body as BridgeResult<unknown>;
  return doorRefusal(res.status, body);
}

/** A 401 from the web door: the session is gone (listeners told), as the error a call then fails with. */
async function sessionEnded(res: Response): Promise<Failed> {
  const body = (await res.json().catch(() => ({}))) as { code?: unknown };
  const team = body.code === 'SIGN_IN_REQUIRED';
  session = null;
  for (const fn of expiredListeners) fn(team ? 'ended' : 'expired');
  return {
    ok: false,
    error: team
      ? { code: 'SIGN_IN_REQUIRED', message: 'Your console session has ended.', hint: 'Sign in again.' }
      : { code: 'TOKEN_INVALID', message: 'The console session has ended.', hint: 'Open the console through a new link.' },
  };
}

/** A door-level refusal (403 and the like) arrives as the HTTP error body, not as a BridgeResult. */
function doorRefusal(status: number, body: unknown): Failed {
  const e = (body ?? {}) as { code?: unknown; message?: unknown; hint?: unknown };
  return {
    ok: false,
    error: {
      code: typeof e.code === 'string' ? e.code : 'HTTP_' + status,
      message: typeof e.message === 'string' ? e.message : `HTTP ${status}`,
      ...(typeof e.hint === 'string' ? { hint: e.hint } : {}),
    },
  };
}

/**
 * A file the door serves for download (a GET of the console's own origin: the web door, or the desktop app's app://
 * scheme): its name (from Content-Disposition) and bytes, read by the browser off the page's main thread. Fails with a
 * ConsoleError as `call` does, so the page can say why; a link the browser followed itself would save the error's JSON
 * as the file instead.
 */
export async function fetchDownload(path: string): Promise<{ filename: string; blob: Blob }> {
  await startSession();
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin' });
  } catch {
    throw new ConsoleError(networkError().error);
  }
  if (res.status === 401) throw new ConsoleError((await sessionEnded(res)).error);
  if (!res.ok) {
    const refused = doorRefusal(res.status, await res.json().catch(() => null)).error;
    // A full or read-only disk shows the storage banner, as it does when a channel call says so.
    if (refused.code === 'STORAGE_UNAVAILABLE') for (const fn of storageFaultListeners) fn();
    throw new ConsoleError(refused);
  }
  const filename = downloadFilename(res.headers.get('content-disposition'));
  try {
    return { filename, blob: await res.blob() };
  } catch {
    throw new ConsoleError(networkError().error);
  }
}

async function postJson(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
}

/** Team sign-in (web console on a team server): resolves once the session cookie is set; throws ConsoleError. */
export async function signIn(email: string, password: string): Promise<void> {
  let r;
  try {
    r = await postJson('sign-in', { email, password });
  } catch {
    throw new ConsoleError({ code: 'NETWORK_ERROR', message: 'The console could not reach the service.', hint: 'Check that the service is still running, then retry.' });
  }
  if (r.status !== 200) {
    const b = r.body as { code?: string; message?: string; details?: { field: string; message: string }[] };
    const wait = r.retryAfter ? ` Try again in ${r.retryAfter} s.` : '';
    throw new ConsoleError({ code: b.code ?? `HTTP_${r.status}`, message: (b.message ?? `Sign-in failed (HTTP ${r.status}).`) + (r.status === 429 ? wait : ''), ...(b.details ? { details: b.details } : {}) });
  }
  session = null;
}

/** Ends the team session; the app then shows the sign-in page. */
export async function signOut(): Promise<void> {
  try {
    await postJson('sign-out', {});
  } finally {
    session = null;
    for (const fn of expiredListeners) fn('signed-out');
  }
}

export async function invoke<K extends ChannelName>(channel: K, input: ChannelInput<K>): Promise<BridgeResult<ChannelOutput<K>>> {
  if (isElectron() && window.vc) {
    try {
      return (await window.vc.invoke(channel, input)) as BridgeResult<ChannelOutput<K>>;
    } catch {
      return networkError();
    }
  }
  return (await webInvoke(channel, input)) as BridgeResult<ChannelOutput<K>>;
}

const storageFaultListeners = new Set<() => void>();

/** Called whenever an answer says the service cannot write to its data folder (the storage banner listens). */
export function onStorageFault(fn: () => void): () => void {
  storageFaultListeners.add(fn);
  return () => storageFaultListeners.delete(fn);
}

export async function call<K extends ChannelName>(channel: K, input: ChannelInput<K>): Promise<ChannelOutput<K>> {
  const result = await invoke(channel, input);
  if (!result.ok && result.error.code === 'STORAGE_UNAVAILABLE') for (const fn of storageFaultListeners) fn();
  if (!result.ok) throw new ConsoleError(result.error);
  return result.value;
}
