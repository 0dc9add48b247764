// CoreDeps for a unit test: a real SQLite store (in memory unless a file is given), the SQL port over it without a
// group commit (each transaction is its own BEGIN IMMEDIATE … COMMIT under synchronous=FULL), a manual clock and a
// silent logger.
import { ManualClock } from '../../src-main/core/clock';
import { silentLogger, type CoreConfig, type CoreDeps } from '../../src-main/core/context';
import { openDatabase, type Db } from '../../src-main/store/database';
import { createServicePort } from '../../src-main/store/service-port';

export const TEST_CONFIG: CoreConfig = {
  scryptN: 1024,
  rateLimitPerMinute: 0,
  retryUnitMs: 60_000,
  allowWebhookHosts: [],
  bootId: 'test',
  resourcesDir: 'resources',
};

export function testDeps(o: { db?: Db; clock?: CoreDeps['clock']; config?: Partial<CoreConfig> } & Partial<Omit<CoreDeps, 'config'>> = {}): CoreDeps & { db: Db; clock: CoreDeps['clock'] } {
  const db = o.db ?? openDatabase(':memory:');
  const sql = o.sql ?? createServicePort(db);
  return {
    ...o,
    db,
    sql,
    clock: o.clock ?? new ManualClock(),
    log: o.log ?? silentLogger,
    config: { ...TEST_CONFIG, ...o.config },
  };
}
