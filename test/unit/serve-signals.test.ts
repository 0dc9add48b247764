// `serve`'s signals (stopSignals): the first asks it to stop; its echo (the terminal's process group and the start
// script both deliver Ctrl+C) is ignored; a signal a second or more later gives up waiting and ends the process (130).
// Found by the final review: ignoring every later signal left a hung stop to kill -9.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SIGNAL_ECHO_MS, stopSignals } from '../../src-main/cli/serve-command';

describe('stopSignals', () => {
  it('stops on the first, ignores its echo, ends at once on a later one, and lets go when disposed', async () => {
    const proc = new EventEmitter();
    let now = 1_000;
    const exits: number[] = [];
    const said: string[] = [];
    const s = stopSignals(proc as never, { now: () => now, exit: (c) => exits.push(c), write: (t) => said.push(t) });
    let asked = false;
    void s.asked.then(() => (asked = true));
    proc.emit('SIGINT');
    await Promise.resolve();
    expect(asked).toBe(true);
    now += 5;
    proc.emit('SIGINT');
    proc.emit('SIGTERM');
    expect(exits).toEqual([]);
    now += SIGNAL_ECHO_MS;
    proc.emit('SIGINT');
    expect(exits).toEqual([130]);
    expect(said.join('')).toContain('asked twice');
    s.dispose();
    expect(proc.listenerCount('SIGINT') + proc.listenerCount('SIGTERM')).toBe(0);
  });
});
