// `vconsole verify KIND`: runs a verification from the command line through the same core path as the API
// (schema check, idempotency, three validation layers, billing in live), and prints the record.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { AccountRequestSchema } from '../../src-shared/schemas/verification';
import { AddressRequestSchema, FaceRequestSchema, IdentityRequestSchema, PhoneRequestSchema } from '../../src-shared/schemas/verification-more';
import { AppError } from '../../src-shared/app-error';
import { getOne, submitOnce } from '../core/verification/verification-service';
import type { VerificationKind } from '../core/verification/types';
import type { ExtraCommand } from './extra-commands';
import { acquireDataFolderLock, DataFolderLockedError, type DataFolderLock } from '../store/data-folder-lock';

const SCHEMAS: Record<VerificationKind, z.ZodType> = {
  account: AccountRequestSchema,
  phone: PhoneRequestSchema,
  identity: IdentityRequestSchema,
  face: FaceRequestSchema,
  address: AddressRequestSchema,
};

export const verifyCommand: ExtraCommand = {
  name: 'verify',
  usage: "vconsole verify account|phone|identity|face|address (--body JSON | --file REQUEST.json) [--environment sandbox|live] [--wait] [--json]",
  async run(args, kit) {
    const [kind, ...rest] = args;
    const { values } = kit.parse(rest, { body: { type: 'string' }, file: { type: 'string' }, environment: { type: 'string' }, wait: { type: 'boolean' } });
    if (!kind || !(kind in SCHEMAS)) {
      process.stderr.write('vconsole: verify: give a kind: account, phone, identity, face or address\n');
      return 2;
    }
    const environment = values['environment'] ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'live') {
      process.stderr.write('vconsole: --environment must be sandbox or live\n');
      return 2;
    }
    let raw: unknown;
    try {
      const text = typeof values['file'] === 'string' ? readFileSync(values['file'], 'utf8') : typeof values['body'] === 'string' ? values['body'] : null;
      if (text === null) throw new Error('give the request with --body JSON or --file FILE');
      raw = JSON.parse(text);
    } catch (e) {
      process.stderr.write(`vconsole: ${(e as Error).message}\n`);
      return 2;
    }
    const k = kind as VerificationKind;
    const parsed = SCHEMAS[k].safeParse(raw);
    if (!parsed.success) {
      throw new AppError('VALIDATION_ERROR', { details: parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message })) });
    }
    // With --wait an async request completes in the service that holds the data folder (its worker notices the new
    // job within a second); when none runs, this process takes the folder's lock and runs the queue while it waits —
    // never a second worker beside a running service (docs/reliability.md, "One service per data folder").
    return kit.withCore({ ...values, json: values['json'] }, async (core) => {
      const p = await kit.ownerPrincipal(core, environment);
      const res = await submitOnce(core.rt.verification, p, k, parsed.data as { mode?: 'async' });
      let record = JSON.parse(res.body) as { id: string; status: string; error?: { code: string; message: string } };
      if (values['wait'] && record.status === 'pending') {
        const lock = tryLock(core.rt.info().dataDir);
        if (lock) core.worker.start();
        try {
          for (let i = 0; i < 200 && record.status === 'pending'; i++) {
            await new Promise((r) => setTimeout(r, 50));
            record = (await getOne(core.rt.verification, p, record.id)) as typeof record;
          }
        } finally {
          if (lock) await core.worker.stop();
          lock?.release();
        }
      }
      const line = `${record.id}  ${record.status}${record.error ? `  ${record.error.code}: ${record.error.message}` : ''}`;
      kit.print(values, record, line);
      return record.status === 'success' || record.status === 'pending' ? 0 : 1;
    });
  },
};

/** The data folder's lock when no service holds it, else null (the running service runs the queue). */
function tryLock(dataDir: string): DataFolderLock | null {
  try {
    return acquireDataFolderLock(dataDir, 'cli');
  } catch (e) {
    if (e instanceof DataFolderLockedError) return null;
    throw e;
  }
}
