// History search's index (docs/console-live.md, "Search"): on SQLite the FTS5 index is brought up to date in the
// background (core/verification/search-index.ts), in the process that runs the queue; stopped with the service.
// PostgreSQL maintains its search index itself: no loop there.
import type { Feature } from './features';
import { startSearchIndexer } from './core/verification/search-index';

export const searchFeature: Feature = {
  name: 'history-search',
  start: ({ rt }) => (rt.deps.sql.engine === 'sqlite' ? startSearchIndexer(rt.deps) : undefined),
};
