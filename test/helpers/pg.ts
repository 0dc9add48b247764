// A fresh PostgreSQL database for a test file, on the run's cluster (test/pg-global-setup.ts). Dropped by `drop()`.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export function pgAdminUrl(): string {
  const url = inject('pgAdminUrl');
  if (!url) throw new Error(`no PostgreSQL for this run: ${inject('pgError') || 'the global setup did not run'}`);
  return url;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgAdminUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function freshDatabase(prefix = 'vc_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
  const u = new URL(pgAdminUrl());
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
