// Several `serve` instances on one PostgreSQL database, as a team server runs them (docs/team-server.md): each with
// its own data folder, all with the same data box key (`secret.key`: webhook signing secrets and provider
// credentials sealed by one instance open in every other). The first bootstraps the organization.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type StartOptions, type TestService } from './harness';

export async function startInstances(databaseUrl: string, n: number, o: Omit<StartOptions, 'databaseUrl' | 'dataDir' | 'bootstrap'> = {}): Promise<TestService[]> {
  const key = randomBytes(32);
  const started: TestService[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'vc-team-'));
      writeFileSync(join(dataDir, 'secret.key'), key, { mode: 0o600 });
      started.push(await startTestService({ ...o, databaseUrl, dataDir, ...(i === 0 ? {} : { bootstrap: false }) }));
    }
  } catch (err) {
    for (const t of started) await t.stop().catch(() => undefined);
    throw err;
  }
  // Every instance answers with the first one's organization and keys.
  const first = started[0]!;
  return started.map((t) => ({ ...t, org: first.org, email: first.email, sandboxKey: first.sandboxKey, liveKey: first.liveKey }));
}
