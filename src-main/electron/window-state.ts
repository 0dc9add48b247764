// Remembers the main window's bounds, maximized flag and display in a JSON file in the app data folder, and
// restores them only where they are still visible (a monitor may have been unplugged since). No electron import.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Rect;
  maximized: boolean;
  displayId: number | null;
}

export interface DisplayLike {
  id: number;
  workArea: Rect;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 } as const;
export const MIN_SIZE = { width: 900, height: 600 } as const;
/** How much of the title bar must lie on a display for the window to count as reachable. */
const VISIBLE_MIN = { width: 120, height: 40 } as const;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 1e6;

/** Parses a saved state; anything malformed (hand-edited, truncated) is treated as no state. */
export function parseWindowState(text: string): WindowState | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { bounds?: Partial<Rect>; maximized?: unknown; displayId?: unknown };
  const b = r.bounds;
  if (!b || !isInt(b.x) || !isInt(b.y) || !isInt(b.width) || !isInt(b.height) || b.width <= 0 || b.height <= 0) return null;
  return {
    bounds: { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) },
    maximized: r.maximized === true,
    displayId: isInt(r.displayId) ? r.displayId : null,
  };
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  };
}

/** The title-bar strip of a window: what the user needs on screen to move it. */
function titleBar(r: Rect): Rect {
  return { x: r.x, y: r.y, width: r.width, height: Math.min(r.height, VISIBLE_MIN.height) };
}

export interface RestoredWindow {
  /** x/y absent: let the window manager place it (centred). */
  bounds: { x?: number; y?: number; width: number; height: number };
  maximized: boolean;
}

/**
 * Where to open the window: the saved bounds if their title bar is still on a display (sized down to fit that
 * display's work area), else the default size on the primary display. A maximized window is re-maximized there.
 */
export function restoreWindowState(saved: WindowState | null, displays: readonly DisplayLike[]): RestoredWindow {
  const fallback: RestoredWindow = { bounds: { ...DEFAULT_SIZE }, maximized: saved?.maximized ?? false };
  if (!saved) return { bounds: { ...DEFAULT_SIZE }, maximized: false };
  const bar = titleBar(saved.bounds);
  const visibleOn = displays.filter((d) => {
    const o = overlap(bar, d.workArea);
    return o.width >= Math.min(VISIBLE_MIN.width, bar.width) && o.height >= Math.min(VISIBLE_MIN.height, bar.height);
  });
  const display = visibleOn.find((d) => d.id === saved.displayId) ?? visibleOn[0];
  if (!display) return fallback;
  const area = display.workArea;
  const width = Math.max(Math.min(saved.bounds.width, area.width), Math.min(MIN_SIZE.width, area.width));
  const height = Math.max(Math.min(saved.bounds.height, area.height), Math.min(MIN_SIZE.height, area.height));
  // Pull the window fully inside the work area once resized, so no edge hides under a panel.
  const x = Math.min(Math.max(saved.bounds.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(saved.bounds.y, area.y), area.y + area.height - height);
  return { bounds: { x, y, width, height }, maximized: saved.maximized };
}

export function readWindowState(file: string): WindowState | null {
  try {
    return parseWindowState(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves a truncated state. */
export function writeWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, file);
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Runs `fn` once `ms` after the last call; flush() runs a pending call now (on close). */
export function debounce(fn: () => void, ms: number, timers: Timers = realTimers): { (): void; flush(): void; cancel(): void } {
  let handle: unknown = null;
  const run = () => {
    handle = null;
    fn();
  };
  const call = () => {
    if (handle !== null) timers.clearTimeout(handle);
    handle = timers.setTimeout(run, ms);
  };
  call.flush = () => {
    if (handle === null) return;
    timers.clearTimeout(handle);
    run();
  };
  call.cancel = () => {
    if (handle !== null) timers.clearTimeout(handle);
    handle = null;
  };
  return call;
}

/** The parts of BrowserWindow and screen this module uses (so tests pass fakes). */
export interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close', fn: () => void): unknown;
}

export interface ScreenLike {
  getDisplayMatching(rect: Rect): { id: number };
}

export function captureWindowState(win: TrackedWindow, screen: ScreenLike): WindowState {
  // Normal bounds: what the window returns to when un-maximized, so maximizing does not overwrite the size.
  const bounds = win.getNormalBounds();
  return { bounds, maximized: win.isMaximized(), displayId: screen.getDisplayMatching(bounds).id };
}

/** Saves the state debounced on move/resize, and at once on close. Returns the debounced saver, with saveNow(). */
export function trackWindowState(win: TrackedWindow, file: string, screen: ScreenLike, delayMs = 500, timers: Timers = realTimers) {
  let last: WindowState | null = null;
  const save = debounce(
    () => {
      if (!last) return;
      try {
        writeWindowState(file, last);
      } catch {
        // A read-only or full disk must never take the window down; the next start simply uses defaults.
      }
    },
    delayMs,
    timers,
  );
  const note = () => {
    if (win.isDestroyed() || win.isMinimized()) return;
    last = captureWindowState(win, screen);
    save();
  };
  for (const ev of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(ev, note);
  const saveNow = () => {
    note();
    save.flush();
  };
  win.on('close', saveNow);
  // saveNow(): at the start of a shutdown too, so a forced exit (app.exit, no 'close' event) keeps the state.
  return Object.assign(save, { saveNow });
}
