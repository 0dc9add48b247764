// The palette's search: every word typed must appear somewhere in an entry (label, description or keywords), in
// any order, so "fixture NG not found" finds a fixture; entries whose label holds every word come first, and
// groups keep their order. Spotlight's default needs the whole query as one substring.
interface Entry {
  label?: string | undefined;
  description?: string | undefined;
  keywords?: string | string[] | undefined;
}
type Group<A> = { group: string; actions: A[] };

function words(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

function keywordText(k: Entry['keywords']): string {
  return (Array.isArray(k) ? k.join(' ') : (k ?? '')).toLowerCase();
}

/** 0: every word in the label; 1: every word somewhere; null: not a match. */
export function matchRank(query: string, e: Entry): 0 | 1 | null {
  const ws = words(query);
  if (ws.length === 0) return 0;
  const label = (e.label ?? '').toLowerCase();
  if (ws.every((w) => label.includes(w))) return 0;
  const all = `${label} ${(e.description ?? '').toLowerCase()} ${keywordText(e.keywords)}`;
  return ws.every((w) => all.includes(w)) ? 1 : null;
}

export function paletteFilter<A extends Entry>(query: string, data: (A | Group<A>)[]): (A | Group<A>)[] {
  if (words(query).length === 0) return data;
  const ranked: { item: A; group: string | null; rank: 0 | 1 }[] = [];
  for (const d of data) {
    const items = 'actions' in d ? d.actions.map((a) => ({ a, g: d.group })) : [{ a: d, g: null }];
    for (const { a, g } of items) {
      const rank = matchRank(query, a);
      if (rank !== null) ranked.push({ item: a, group: g, rank });
    }
  }
  // Stable: within a rank, the original order.
  ranked.sort((x, y) => x.rank - y.rank);
  const out: (A | Group<A>)[] = [];
  const groups = new Map<string, Group<A>>();
  for (const r of ranked) {
    if (r.group === null) {
      out.push(r.item);
      continue;
    }
    let g = groups.get(r.group);
    if (!g) {
      g = { group: r.group, actions: [] };
      groups.set(r.group, g);
      out.push(g);
    }
    g.actions.push(r.item);
  }
  return out;
}
