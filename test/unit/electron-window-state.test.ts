// Window state: parsed defensively, restored only onto a display that still shows the title bar, saved debounced on
// move/resize and at once on close (fake timers and a fake window: no Electron, no real time).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SIZE,
  debounce,
  parseWindowState,
  readWindowState,
  restoreWindowState,
  trackWindowState,
  writeWindowState,
  type DisplayLike,
  type Rect,
  type Timers,
  type TrackedWindow,
  type WindowState,
} from '../../src-main/electron/window-state';

const laptop: DisplayLike = { id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1050 } };
const rightMonitor: DisplayLike = { id: 2, workArea: { x: 1920, y: 0, width: 2560, height: 1400 } };

function manualTimers() {
  let next = 1;
  const pending = new Map<number, () => void>();
  const timers: Timers = {
    setTimeout: (fn) => {
      const id = next++;
      pending.set(id, fn);
      return id;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  const fire = () => {
    const fns = [...pending.values()];
    pending.clear();
    fns.forEach((f) => f());
  };
  return { timers, fire, pending };
}

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'vc-winstate-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('parseWindowState', () => {
  it('reads a saved state', () => {
    expect(parseWindowState('{"bounds":{"x":10,"y":20,"width":1000,"height":700},"maximized":true,"displayId":2}')).toEqual({
      bounds: { x: 10, y: 20, width: 1000, height: 700 },
      maximized: true,
      displayId: 2,
    });
  });
  it.each(['', 'null', '[]', '{"bounds":{"x":1,"y":2,"width":0,"height":5}}', '{"bounds":{"x":"1","y":2,"width":5,"height":5}}', '{"bounds":{"x":1e9,"y":2,"width":5,"height":5}}', '{"maximized":true}', '{bad json'])(
    'treats %s as no state',
    (text) => expect(parseWindowState(text)).toBeNull(),
  );
});

describe('restoreWindowState', () => {
  const saved = (bounds: Rect, displayId: number | null = null, maximized = false): WindowState => ({ bounds, maximized, displayId });

  it('opens at the default size, centred, the first time', () => {
    expect(restoreWindowState(null, [laptop])).toEqual({ bounds: { ...DEFAULT_SIZE }, maximized: false });
  });
  it('restores bounds and maximized on a display that is still there', () => {
    const s = saved({ x: 2100, y: 100, width: 1400, height: 900 }, 2, true);
    expect(restoreWindowState(s, [laptop, rightMonitor])).toEqual({ bounds: { x: 2100, y: 100, width: 1400, height: 900 }, maximized: true });
  });
  it('falls back to the default placement when its monitor was unplugged', () => {
    const s = saved({ x: 2100, y: 100, width: 1400, height: 900 }, 2, false);
    expect(restoreWindowState(s, [laptop])).toEqual({ bounds: { ...DEFAULT_SIZE }, maximized: false });
  });
  it('does not count a window whose title bar is off screen as visible', () => {
    // Only the bottom 30 px of the window would show: the user could not grab it.
    const s = saved({ x: 100, y: -870, width: 1200, height: 900 });
    expect(restoreWindowState(s, [laptop]).bounds).toEqual({ ...DEFAULT_SIZE });
  });
  it('shrinks and pulls a window that is larger than or hangs over its display', () => {
    const s = saved({ x: 1500, y: 800, width: 3000, height: 2000 }, 1);
    const r = restoreWindowState(s, [laptop]);
    expect(r.bounds).toEqual({ x: 0, y: 0, width: 1920, height: 1050 });
  });
});

describe('saving', () => {
  it('writes atomically and reads back', () => {
    const file = join(tmp(), 'nested', 'window-state.json');
    const s: WindowState = { bounds: { x: 1, y: 2, width: 1000, height: 700 }, maximized: false, displayId: 1 };
    writeWindowState(file, s);
    expect(readWindowState(file)).toEqual(s);
    writeFileSync(file, '{"truncated');
    expect(readWindowState(file)).toBeNull();
    expect(readWindowState(join(tmp(), 'missing.json'))).toBeNull();
  });

  it('debounce runs once after the last call; flush runs a pending call now', () => {
    const { timers, fire } = manualTimers();
    let n = 0;
    const d = debounce(() => n++, 500, timers);
    d();
    d();
    d();
    expect(n).toBe(0);
    fire();
    expect(n).toBe(1);
    d();
    d.flush();
    expect(n).toBe(2);
    d.flush();
    expect(n).toBe(2);
  });

  it('tracks a window: debounced on move/resize, immediate on close, normal bounds and display recorded', () => {
    const file = join(tmp(), 'window-state.json');
    const handlers = new Map<string, () => void>();
    let bounds: Rect = { x: 50, y: 60, width: 1100, height: 750 };
    let maximized = false;
    const win: TrackedWindow = {
      getNormalBounds: () => bounds,
      isMaximized: () => maximized,
      isMinimized: () => false,
      isDestroyed: () => false,
      on: (ev, fn) => handlers.set(ev, fn),
    };
    const screen = { getDisplayMatching: (r: Rect) => (r.x >= 1920 ? rightMonitor : laptop) };
    const { timers, fire, pending } = manualTimers();
    trackWindowState(win, file, screen, 500, timers);

    handlers.get('move')!();
    handlers.get('resize')!();
    expect(pending.size).toBe(1);
    expect(readWindowState(file)).toBeNull();
    fire();
    expect(readWindowState(file)).toEqual({ bounds, maximized: false, displayId: 1 });

    bounds = { x: 2000, y: 10, width: 1300, height: 800 };
    maximized = true;
    handlers.get('maximize')!();
    handlers.get('close')!();
    expect(pending.size).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ bounds, maximized: true, displayId: 2 });
  });
});
