// What the provider registry loads on its first live call or probe (registry.ts): the runtime and every adapter.
import type { LiveAdapter } from './adapter';
import { epcVopAdapter } from './epc-vop-adapter';
import { genericAdapter } from './generic-adapter';
import { ukCopAdapter } from './uk-cop-adapter';

export { LiveProvider } from './live-provider';

export const ADAPTERS: Record<'generic' | 'epc-vop' | 'uk-cop', LiveAdapter> = {
  generic: genericAdapter,
  'epc-vop': epcVopAdapter,
  'uk-cop': ukCopAdapter,
};
