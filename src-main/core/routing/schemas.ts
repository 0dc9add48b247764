// The bank-routing zod schemas now live in src-shared (the console uses them too); re-exported so core imports keep working.
export * from '../../../src-shared/schemas/routing';
