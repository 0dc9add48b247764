// i18n-iso-countries (every country's names), loaded by the first BIC checked: see load.ts.
import type Countries from 'i18n-iso-countries';
import { lazyObject, lazyPackage } from './load';

export default lazyObject(lazyPackage<typeof Countries>('i18n-iso-countries'));
