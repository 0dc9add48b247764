// papaparse (the CSV engine's delimiter guess), loaded by the first CSV file read: see load.ts.
import type Papa from 'papaparse';
import { lazyObject, lazyPackage } from './load';

export default lazyObject(lazyPackage<typeof Papa>('papaparse'));
