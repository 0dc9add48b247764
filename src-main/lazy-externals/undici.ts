// undici, loaded by the first webhook delivery, live provider call or CLI request (see load.ts).
import type * as Undici from 'undici';
import { lazyClass, lazyFunction, lazyPackage } from './load';

const undici = lazyPackage<typeof Undici>('undici');
export const Agent = lazyClass(undici, 'Agent');
export const request = lazyFunction(undici, 'request');
export const buildConnector = lazyFunction(undici, 'buildConnector');
