// `vconsole wallet|prices|services …`: the owner's billing actions (decisions §9), thin over core/billing.
import { disableService, enableService, getWallet, listEnabledServices, listPrices, setPrice, topUp } from '../core/billing/billing';
import { minorToMajor, parseMajorAmount } from '../../src-shared/money';
import type { ExtraCommand } from './extra-commands';

class Usage extends Error {}

/** Amounts are typed in major units (12.50) and stored in minor units (1250), with the currency's own decimals. */
function amountMinor(raw: string, currency: string): number {
  const parsed = parseMajorAmount(raw, currency);
  if (!parsed.ok) throw new Usage(parsed.message);
  return parsed.minor;
}

function money(minor: number, currency: string): string {
  return `${minorToMajor(minor, currency)} ${currency}`;
}

function fail(e: unknown): never {
  if (e instanceof Usage) {
    process.stderr.write(`vconsole: ${e.message}\n`);
    process.exit(2);
  }
  throw e;
}

export const billingCommands: ExtraCommand[] = [
  {
    name: 'wallet',
    usage: 'vconsole wallet show | wallet topup AMOUNT [--currency USD]   (AMOUNT in major units, e.g. 25.00)',
    async run(args, kit) {
      const [sub, ...rest] = args;
      const { values, positionals } = kit.parse(rest, { currency: { type: 'string' } });
      try {
        if (sub === 'show') {
          const w = await kit.withCore(values, async (core) => getWallet(core.deps, (await kit.ownerPrincipal(core)).organizationId));
          kit.print(values, w, `Wallet: ${money(w.balance, w.currency)} (${w.status})`);
          return 0;
        }
        if (sub === 'topup') {
          const raw = positionals[0];
          if (!raw) throw new Usage('wallet topup: give an amount, e.g. `vconsole wallet topup 25.00`');
          const currency = typeof values['currency'] === 'string' ? values['currency'].toUpperCase() : 'USD';
          const minor = amountMinor(raw, currency);
          if (minor <= 0) throw new Usage('the amount must be greater than zero');
          const w = await kit.withCore(values, async (core) => topUp(core.deps, (await kit.ownerPrincipal(core)).organizationId, minor, currency));
          kit.print(values, w, `Topped up ${money(minor, currency)}. Balance: ${money(w.balance, w.currency)}.`);
          return 0;
        }
        throw new Usage('wallet: expected `show` or `topup AMOUNT`');
      } catch (e) {
        return fail(e);
      }
    },
  },
  {
    name: 'prices',
    usage: 'vconsole prices set SERVICE AMOUNT [--currency USD] | prices list   (SERVICE e.g. account:NG, phone:KE, face)',
    async run(args, kit) {
      const [sub, ...rest] = args;
      const { values, positionals } = kit.parse(rest, { currency: { type: 'string' } });
      try {
        if (sub === 'list') {
          const list = await kit.withCore(values, async (core) => listPrices(core.deps, (await kit.ownerPrincipal(core)).organizationId));
          kit.print(values, list, list.map((p) => `${p.service.padEnd(24)} ${money(p.amount, p.currency)}`).join('\n') || 'No prices set.');
          return 0;
        }
        if (sub === 'set') {
          const [service, raw] = positionals;
          if (!service || !raw) throw new Usage('prices set: give SERVICE and AMOUNT, e.g. `vconsole prices set account:NG 0.50`');
          const currency = typeof values['currency'] === 'string' ? values['currency'].toUpperCase() : 'USD';
          const p = await kit.withCore(values, async (core) => setPrice(core.deps, (await kit.ownerPrincipal(core)).organizationId, service, amountMinor(raw, currency), currency));
          kit.print(values, p, `Price of ${p.service} set to ${money(p.amount, p.currency)}.`);
          return 0;
        }
        throw new Usage('prices: expected `set SERVICE AMOUNT` or `list`');
      } catch (e) {
        return fail(e);
      }
    },
  },
  {
    name: 'services',
    usage: 'vconsole services enable SERVICE | services disable SERVICE | services list',
    async run(args, kit) {
      const [sub, ...rest] = args;
      const { values, positionals } = kit.parse(rest, {});
      try {
        if (sub === 'list') {
          const list = await kit.withCore(values, async (core) => listEnabledServices(core.deps, (await kit.ownerPrincipal(core)).organizationId));
          kit.print(values, list, list.join('\n') || 'No services enabled.');
          return 0;
        }
        if (sub === 'enable' || sub === 'disable') {
          const service = positionals[0];
          if (!service) throw new Usage(`services ${sub}: give a service key, e.g. account:NG`);
          const r = await kit.withCore(values, async (core) => {
            const org = (await kit.ownerPrincipal(core)).organizationId;
            return sub === 'enable' ? enableService(core.deps, org, service) : disableService(core.deps, org, service);
          });
          kit.print(values, r, `${r.service} ${r.enabled ? 'enabled' : 'disabled'}.`);
          return 0;
        }
        throw new Usage('services: expected `enable`, `disable` or `list`');
      } catch (e) {
        return fail(e);
      }
    },
  },
];
