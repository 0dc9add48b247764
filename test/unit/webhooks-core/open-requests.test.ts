// The limits on webhook requests open at once (src-main/jobs/open-requests.ts): in all and per webhook, the waiting
// ones of a webhook in order, the total's room shared by webhooks in turn, the limit read at each admission, and a
// close that tells every waiting attempt it will not open.
import { describe, expect, it } from 'vitest';
import { OpenRequests } from '../../../src-main/jobs/open-requests';

/** Enters `n` attempts of `webhookId`, recording in `opened` (by label) those that open, at once or later. */
function enter(r: OpenRequests, webhookId: string, labels: string[], opened: string[], refused: string[] = []): void {
  for (const label of labels) {
    const e = r.enter(webhookId);
    if (e === true) opened.push(label);
    else void e.then((ok) => (ok ? opened : refused).push(label));
  }
}

const settle = () => new Promise((r) => setImmediate(r));

describe('OpenRequests', () => {
  it('opens up to the per-webhook limit at once; the rest wait and open in order as requests end', async () => {
    const r = new OpenRequests(() => 10, () => 2);
    const opened: string[] = [];
    enter(r, 'a', ['a1', 'a2', 'a3', 'a4'], opened);
    await settle();
    expect(opened).toEqual(['a1', 'a2']);
    expect(r.openCount('a')).toBe(2);
    expect(r.waitingCount).toBe(2);
    r.leave('a');
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3']);
    r.leave('a');
    r.leave('a');
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(r.openCount()).toBe(1);
    expect(r.waitingCount).toBe(0);
  });

  it('keeps the total across webhooks, and gives the room a request frees to the oldest waiting attempt that has room', async () => {
    const r = new OpenRequests(() => 3, () => 3);
    const opened: string[] = [];
    enter(r, 'a', ['a1', 'a2', 'a3'], opened);
    enter(r, 'b', ['b1', 'b2'], opened);
    enter(r, 'c', ['c1'], opened);
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3']);
    for (const expected of ['b1', 'b2', 'c1']) {
      r.leave('a');
      await settle();
      expect(opened.at(-1)).toBe(expected);
    }
    expect(r.openCount()).toBe(3);
    expect(r.waitingCount).toBe(0);
  });

  it('a webhook whose requests keep ending does not pass an attempt of another that waited before its own', async () => {
    // The total is full with a's and b's; c waits from the start, then a and b keep leasing more.
    const r = new OpenRequests(() => 4, () => 2);
    const opened: string[] = [];
    enter(r, 'a', ['a1', 'a2'], opened);
    enter(r, 'b', ['b1', 'b2'], opened);
    enter(r, 'c', ['c1'], opened);
    for (let i = 3; i < 50; i++) {
      enter(r, 'a', [`a${i}`], opened);
      enter(r, 'b', [`b${i}`], opened);
    }
    await settle();
    r.leave('a');
    await settle();
    expect(opened.at(-1)).toBe('c1');
    // c's request holds one of the four: a and b share the rest, each in its order.
    r.leave('b');
    r.leave('a');
    await settle();
    expect(opened.slice(4)).toEqual(['c1', 'a3', 'b3']);
  });

  it('reads the limit at each admission: a webhook that turned slow opens none until it is below its new limit', async () => {
    let limit = 3;
    const r = new OpenRequests(() => 10, () => limit);
    const opened: string[] = [];
    enter(r, 'a', ['a1', 'a2', 'a3', 'a4', 'a5'], opened);
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3']);
    limit = 1;
    r.leave('a');
    await settle();
    expect(opened).toHaveLength(3);
    r.leave('a');
    await settle();
    expect(opened).toHaveLength(3);
    r.leave('a');
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(r.openCount('a')).toBe(1);
  });

  it('a new attempt does not pass those of its webhook already waiting', async () => {
    const r = new OpenRequests(() => 10, () => 1);
    const opened: string[] = [];
    enter(r, 'a', ['a1', 'a2'], opened);
    r.leave('a');
    enter(r, 'a', ['a3'], opened);
    await settle();
    expect(opened).toEqual(['a1', 'a2']);
    r.leave('a');
    await settle();
    expect(opened).toEqual(['a1', 'a2', 'a3']);
  });

  it('close(): every waiting attempt and every later one is told it will not open', async () => {
    const r = new OpenRequests(() => 1, () => 1);
    const opened: string[] = [];
    const refused: string[] = [];
    enter(r, 'a', ['a1', 'a2'], opened, refused);
    enter(r, 'b', ['b1'], opened, refused);
    r.close();
    enter(r, 'c', ['c1'], opened, refused);
    r.leave('a');
    await settle();
    expect(opened).toEqual(['a1']);
    expect(refused.sort()).toEqual(['a2', 'b1', 'c1']);
    expect(r.waitingCount).toBe(0);
  });
});
