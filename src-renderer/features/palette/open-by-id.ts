// The palette's id lookup: `ver_…`, `del_…`, `whk_…` (or `wh_…`) and `key_…` ids are looked up on the service
// (lookup:id, this organization only) and opened where they live, switching environment the usual way (live asks).
import { ID_PATTERN, type IdLookup } from '../../../src-shared/channels-history';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';

/** The id in the palette's text, when the text is one id (surrounding spaces ignored). */
export function idInQuery(query: string): string | null {
  const q = query.trim();
  return ID_PATTERN.test(q) ? q : null;
}

export function openLookup(found: IdLookup): void {
  const s = useConsole.getState();
  if (found.environment !== s.environment) s.requestEnvironment(found.environment);
  switch (found.kind) {
    case 'verification':
      s.openHistory({ openId: found.id });
      break;
    case 'delivery':
      s.openWebhook({ webhookId: found.webhookId ?? '', deliveryId: found.id });
      break;
    case 'webhook':
      s.openWebhook({ webhookId: found.id });
      break;
    case 'key':
      s.setSection('keys');
      break;
  }
}

/** Looks the id up and opens it; the error (not found, another organization's) is the caller's to show. */
export async function openById(id: string): Promise<IdLookup> {
  const found = await call('lookup:id', { id });
  openLookup(found);
  return found;
}
