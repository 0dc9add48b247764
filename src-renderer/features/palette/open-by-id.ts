// The palette's id lookup: `ver_…`, `del_…`, `whk_…` (or `wh_…`) and `key_…` ids are looked up on the service
// (lookup:id, this organization only) and opened where they live, switching environment the usual way (live asks).
import { ID_PATTERN, type IdLookup } from '../../../src-shared/channels-history';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';
import { paths } from '../../app/routes';

/** The id in the palette's text, when the text is one id (surrounding spaces ignored). */
export function idInQuery(query: string): string | null {
  const q = query.trim();
  return ID_PATTERN.test(q) ? q : null;
}

/** The address of what an id names (app/routes.ts): the record, the delivery in its webhook's drawer, the webhook, the keys. */
export function lookupPath(found: IdLookup): string {
  switch (found.kind) {
    case 'verification':
      return paths.verification(found.id);
    case 'delivery':
      return found.webhookId ? paths.delivery(found.webhookId, found.id) : paths.section('webhooks');
    case 'webhook':
      return paths.webhook(found.id);
    case 'key':
      return paths.section('keys');
  }
}

/**
 * Opens what was found. In the other environment, nothing moves until the switch is made (live asks first): then
 * the item opens there; declining leaves the console where it was, with no error.
 */
export function openLookup(found: IdLookup, navigate: (to: string) => void): void {
  const s = useConsole.getState();
  if (found.environment !== s.environment) s.openIn(found.environment, lookupPath(found));
  else navigate(lookupPath(found));
}

/** Looks the id up and opens it; the error (not found, another organization's) is the caller's to show. */
export async function openById(id: string, navigate: (to: string) => void): Promise<IdLookup> {
  const found = await call('lookup:id', { id });
  openLookup(found, navigate);
  return found;
}
