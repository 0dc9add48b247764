// The command palette's search: all words, any order, label matches first, groups kept.
import { describe, expect, it } from 'vitest';
import { matchRank, paletteFilter } from '../../../src-renderer/features/palette/palette-filter';

const DATA = [
  {
    group: 'Pages',
    actions: [
      { id: 'history', label: 'History', description: 'Open History', keywords: ['go', 'page'] },
      { id: 'webhooks', label: 'Webhooks', description: 'Open Webhooks', keywords: ['go', 'page'] },
    ],
  },
  {
    group: 'Fixtures',
    actions: [
      { id: 'f1', label: 'Verify account NG: Account not found', description: 'expects failed', keywords: ['fixture', 'sandbox'] },
      { id: 'f2', label: 'Verify phone NG: Registered subscriber', description: 'expects success', keywords: 'fixture,sandbox' },
      { id: 'f3', label: 'Verify account KE: Webhooks demo', description: 'expects success', keywords: ['fixture'] },
    ],
  },
];

const ids = (r: ReturnType<typeof paletteFilter>) => r.flatMap((g) => ('actions' in g ? g.actions.map((a) => (a as { id: string }).id) : []));

describe('palette filter', () => {
  it('needs every word, in any order, anywhere in label, description or keywords', () => {
    expect(ids(paletteFilter('fixture NG not found', DATA))).toEqual(['f1']);
    expect(ids(paletteFilter('ng fixture', DATA))).toEqual(['f1', 'f2']);
    expect(ids(paletteFilter('sandbox subscriber', DATA))).toEqual(['f2']);
    expect(ids(paletteFilter('nothing like this', DATA))).toEqual([]);
  });

  it('ranks label matches before the rest, so a page name + Enter opens that page', () => {
    expect(ids(paletteFilter('webhooks', DATA))).toEqual(['webhooks', 'f3']);
    expect(matchRank('open history', { label: 'History', description: 'Open History' })).toBe(1);
    expect(matchRank('HIST', { label: 'History' })).toBe(0);
  });

  it('an empty query leaves everything as it is', () => {
    expect(paletteFilter('   ', DATA)).toBe(DATA);
  });
});
