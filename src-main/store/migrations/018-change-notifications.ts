// Migration 18: nothing to change on SQLite — the twin of PostgreSQL's migration 18 (versions stay paired), whose
// triggers announce changes to the other instances of a team server with NOTIFY. A SQLite store has one service
// process: its live change events come from temporary triggers of the service's own connection
// (core/events/live-events.ts), and a setting changed in that process is applied by it at once.
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m018ChangeNotifications: Migration = {
  version: 18,
  name: 'change-notifications',
  sql: `-- no change on SQLite (see PostgreSQL migration 18)`,
};
