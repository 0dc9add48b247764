// ibantools, loaded by the first IBAN checked: see load.ts.
import type * as Iban from 'ibantools';
import { lazyFunction, lazyObject, lazyPackage } from './load';

const iban = lazyPackage<typeof Iban>('ibantools');
export const electronicFormatIBAN = lazyFunction(iban, 'electronicFormatIBAN');
export const getCountrySpecifications = lazyFunction(iban, 'getCountrySpecifications');
export const isValidIBAN = lazyFunction(iban, 'isValidIBAN');
export const validateIBAN = lazyFunction(iban, 'validateIBAN');
export const ValidationErrorsIBAN = lazyObject(() => iban().ValidationErrorsIBAN);
