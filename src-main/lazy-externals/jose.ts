// jose, loaded by the first sign-in (it only signs; tokens are verified without it): see load.ts.
import type * as Jose from 'jose';
import { lazyClass, lazyPackage } from './load';

const jose = lazyPackage<typeof Jose>('jose');
export const SignJWT = lazyClass(jose, 'SignJWT');
