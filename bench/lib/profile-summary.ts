// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the top frames by self time, by total time, and self
// time aggregated by file. Usage: npx tsx bench/lib/profile-summary.ts /tmp/prof/<file>.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

export function summarise(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const l = label(n.callFrame);
    self.set(l, (self.get(l) ?? 0) + us);
    const file = n.callFrame.url ? shortUrl(n.callFrame.url) : `(${n.callFrame.functionName})`;
    files.set(file, (files.get(file) ?? 0) + us);
    // Inclusive time: every distinct frame on the stack gets the sample once (recursion counted once).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const ll = label(byId.get(cur)!.callFrame);
      if (seen.has(ll)) continue;
      seen.add(ll);
      incl.set(ll, (incl.get(ll) ?? 0) + us);
    }
  }
  const fmt = (m: Map<string, number>, n: number) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)
      .map(([k, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  return [`total sampled: ${(total / 1000).toFixed(0)} ms`, `\n-- top ${top} by self time --`, fmt(self, top),
    `\n-- top ${top} by total time --`, fmt(incl, top), `\n-- self time by file --`, fmt(files, top)].join('\n');
}

function shortUrl(u: string): string {
  return u.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'nm/').replace(/^.*\/work\/main\//, '');
}

if (process.argv[1] && /profile-summary/.test(process.argv[1])) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [--top N]');
  const i = process.argv.indexOf('--top');
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, i === -1 ? 25 : Number(process.argv[i + 1])));
}
