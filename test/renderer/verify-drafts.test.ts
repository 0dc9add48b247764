// Verify's drafts (features/verify/drafts.ts): an answer that comes after the Verify page went away (its drafts
// forgotten) is dropped, not kept for the next visit, which starts with empty forms (found by the late review).
import { describe, expect, it } from 'vitest';
import { draftsGeneration, forgetDrafts, writeDraft } from '../../src-renderer/features/verify/drafts';

describe('Verify drafts', () => {
  it('a write of a forgotten generation is dropped; one of the current generation is kept', () => {
    const before = draftsGeneration();
    writeDraft('phone:result', { id: 'ver_1' }, null, before);
    forgetDrafts();
    const now = draftsGeneration();
    expect(now).toBe(before + 1);
    // The request sent before the page went away answers now.
    writeDraft('phone:result', { id: 'ver_late' }, null, before);
    writeDraft('phone:busy', false, false, before);
    // What the next visit writes is kept.
    writeDraft('phone:busy', true, false, now);
    let seen: unknown = 'unset';
    writeDraft<unknown>('phone:result', (p: unknown) => ((seen = p), p), null, now);
    expect(seen).toBeNull();
    let busy: unknown;
    writeDraft<unknown>('phone:busy', (p: unknown) => ((busy = p), p), false, now);
    expect(busy).toBe(true);
  });
});
