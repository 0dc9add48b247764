// libphonenumber-js (its metadata is most of its load), loaded by the first phone number checked: see load.ts.
import type * as Phone from 'libphonenumber-js';
import { lazyFunction, lazyPackage } from './load';

const phone = lazyPackage<typeof Phone>('libphonenumber-js');
export const getCountryCallingCode = lazyFunction(phone, 'getCountryCallingCode');
export const parsePhoneNumberFromString = lazyFunction(phone, 'parsePhoneNumberFromString');
