// Commands contributed by features (wallet, prices, services, routing, batch, webhooks), each a thin adapter.
import type { ParseArgsConfig } from 'node:util';
import { billingCommands } from './billing-commands';
import { webhooksCommand } from './webhooks-cli';
import { verifyCommand } from './verify-commands';
import type { Principal } from '../core/principal';
import type { Core } from '../service';
import { routingCommands } from './routing-commands';
import { providersCommand } from './providers-commands';
import { configCommand } from './config-commands';
import { simulatorCommand } from './simulator-command';
import { dbCommand, migrateCommand } from './db-commands';
import { auditCommand } from './audit-commands';
import { demoCommand } from './demo-commands';

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;
export interface CliKit {
  parse(args: string[], options: ParseArgsConfig['options']): { values: Values; positionals: string[] };
  need(values: Values, name: string): string;
  withCore<T>(values: Values, fn: (core: Core) => Promise<T> | T): Promise<T>;
  /** The installation's owner (the first organization), as the command line acts; refused before bootstrap. */
  ownerPrincipal(core: Core, environment?: 'sandbox' | 'live'): Promise<Principal>;
  print(values: Values, json: unknown, text: string): void;
  /** The data folder a command works on (--data-dir, else $VCONSOLE_DATA_DIR, else the platform's default). */
  dataDir(values: Values): string;
}

export interface ExtraCommand {
  name: string;
  usage: string;
  run(args: string[], kit: CliKit): Promise<number>;
}

export const extraCommands: ExtraCommand[] = [verifyCommand, ...routingCommands, ...billingCommands, webhooksCommand, configCommand, simulatorCommand, providersCommand, dbCommand, migrateCommand, auditCommand, demoCommand];
