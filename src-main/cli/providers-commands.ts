// `vconsole providers list|set|remove|test|cache-ttl`: live-mode upstream configuration (docs/providers.md), thin
// over the same core service as the console. A credential is read from an environment variable or stdin, never
// from the command line (shell history, `ps`), and no output ever prints it.
import { readFileSync } from 'node:fs';
import { PROVIDER_KINDS, type ProviderInput, type ProviderView } from '../../src-shared/schemas/providers';
import { providersOverview } from '../feature-providers';
import { liveProviders } from '../providers/registry';
import type { ExtraCommand } from './extra-commands';

class Usage extends Error {}

const USAGE = `vconsole providers list [--json]
  vconsole providers set ID --adapter generic|epc-vop|uk-cop|stand-in [--base-url URL] [--route kind:CC|kind:*]...
      [--secret-env VAR | --secret-stdin | --clear-secret] [--auth bearer|api-key] [--timeout-ms N] [--deadline-ms N]
      [--max-concurrency N] [--max-queue N] [--retries N] [--breaker-threshold N] [--breaker-cooldown-ms N]
      [--mapping-file FILE.json] [--ca-file CA.pem | --clear-ca] [--json]
  vconsole providers remove ID | providers test ID | providers cache-ttl KIND SECONDS`;

const NUMBERS = {
  'timeout-ms': 'timeoutMs',
  'deadline-ms': 'deadlineMs',
  'max-concurrency': 'maxConcurrency',
  'max-queue': 'maxQueue',
  retries: 'retries',
  'breaker-threshold': 'breakerThreshold',
  'breaker-cooldown-ms': 'breakerCooldownMs',
} as const;

/** `what` names the value as the user gave it: `--timeout-ms`, or `providers cache-ttl: SECONDS`. */
function int(raw: unknown, what: string): number {
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new Usage(`${what} must be a whole number`);
  return n;
}

/** A file named by a flag, read before the store is opened: a missing or unreadable one is a usage error naming it. */
function readFlagFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Usage(`cannot read --${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/**
 * The CLI opens a core of its own: circuit state, in-flight counts and the last error live in the memory of the
 * running service (docs/providers.md), so this process has none to show. Its outputs say so (`state: null`)
 * instead of printing an idle "closed".
 */
type CliProviderView = Omit<ProviderView, 'state'> & { state: null };
const cliView = (p: ProviderView): CliProviderView => ({ ...p, state: null });
const NO_LIVE_STATE = 'Circuit state, in-flight checks and the last error are kept by the running service: see its console (Providers page).';

function line(p: CliProviderView): string {
  const secret = p.secret.configured ? `secret ${p.secret.masked}` : 'no secret';
  const ca = p.ca ? `; CA ${p.ca.subject} sha256 ${p.ca.fingerprint256.slice(0, 23)}…` : '';
  return `${p.id.padEnd(16)} ${p.adapter.padEnd(9)} ${(p.baseUrl || '-').padEnd(36)} ${p.routes.join(',') || '(no routes)'}  [${secret}${ca}]`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export const providersCommand: ExtraCommand = {
  name: 'providers',
  usage: USAGE,
  async run(args, kit) {
    const [sub, ...rest] = args;
    try {
      if (sub === 'list') {
        const { values } = kit.parse(rest, {});
        const overview = await kit.withCore(values, (core) => providersOverview(core.rt));
        const o = { ...overview, providers: overview.providers.map(cliView) };
        const ttl = Object.entries(o.cacheTtlSeconds).map(([k, v]) => `${k}=${v}s`).join(' ');
        const text = [
          ...(o.providers.length ? [...o.providers.map(line), NO_LIVE_STATE] : ['No providers configured: live checks are refused until one is.']),
          `Cache TTL: ${ttl}`,
          `Secrets: ${o.secretProtection}`,
        ].join('\n');
        kit.print(values, o, text);
        return 0;
      }
      if (sub === 'set') {
        const { values, positionals } = kit.parse(rest, {
          adapter: { type: 'string' },
          'base-url': { type: 'string' },
          route: { type: 'string', multiple: true },
          'secret-env': { type: 'string' },
          'secret-stdin': { type: 'boolean' },
          'clear-secret': { type: 'boolean' },
          auth: { type: 'string' },
          'mapping-file': { type: 'string' },
          'ca-file': { type: 'string' },
          'clear-ca': { type: 'boolean' },
          ...Object.fromEntries(Object.keys(NUMBERS).map((k) => [k, { type: 'string' as const }])),
        });
        const id = positionals[0];
        if (!id) throw new Usage('providers set: give the provider ID');
        let secret: string | undefined;
        if (typeof values['secret-env'] === 'string') {
          secret = process.env[values['secret-env']];
          if (!secret) throw new Usage(`the environment variable ${values['secret-env']} is empty or not set`);
        } else if (values['secret-stdin']) {
          secret = await readStdin();
          if (!secret) throw new Usage('no secret on stdin');
        }
        let caCert: string | undefined;
        if (typeof values['ca-file'] === 'string') {
          if (values['clear-ca']) throw new Usage('give --ca-file or --clear-ca, not both');
          caCert = readFlagFile('ca-file', values['ca-file']);
        }
        let mapping: unknown;
        if (typeof values['mapping-file'] === 'string') {
          const text = readFlagFile('mapping-file', values['mapping-file']);
          try {
            mapping = JSON.parse(text);
          } catch (e) {
            throw new Usage(`--mapping-file ${values['mapping-file']} is not valid JSON: ${(e as Error).message}`);
          }
        }
        const numbers: Record<string, number> = {};
        for (const [flag, key] of Object.entries(NUMBERS)) if (values[flag] !== undefined) numbers[key] = int(values[flag], `--${flag}`);
        const view = await kit.withCore(values, async (core) => {
          const reg = liveProviders(core.rt);
          const existing = await reg.config.get(id);
          // Options not given keep their stored values.
          const input: Record<string, unknown> = existing
            ? { ...existing, mapping: existing.mapping ?? undefined }
            : { id };
          delete input['secretConfigured'];
          delete input['secretLast4'];
          delete input['createdAt'];
          delete input['updatedAt'];
          delete input['ca'];
          if (typeof values['adapter'] === 'string') input['adapter'] = values['adapter'];
          if (!input['adapter']) throw new Usage('providers set: --adapter is required for a new provider');
          if (typeof values['base-url'] === 'string') input['baseUrl'] = values['base-url'];
          if (Array.isArray(values['route'])) input['routes'] = values['route'];
          if (typeof values['auth'] === 'string') input['authScheme'] = values['auth'];
          Object.assign(input, numbers);
          if (mapping !== undefined) input['mapping'] = mapping;
          if (secret !== undefined) input['secret'] = secret;
          if (values['clear-secret']) input['clearSecret'] = true;
          if (caCert !== undefined) input['caCert'] = caCert;
          if (values['clear-ca']) input['clearCaCert'] = true;
          return cliView(reg.view(await reg.config.set(input as ProviderInput)));
        });
        kit.print(values, view, `Saved.\n${line(view)}`);
        return 0;
      }
      if (sub === 'remove') {
        const { values, positionals } = kit.parse(rest, {});
        const id = positionals[0];
        if (!id) throw new Usage('providers remove: give the provider ID');
        await kit.withCore(values, (core) => liveProviders(core.rt).config.remove(id));
        kit.print(values, { id, removed: true }, `Removed ${id}.`);
        return 0;
      }
      if (sub === 'test') {
        const { values, positionals } = kit.parse(rest, {});
        const id = positionals[0];
        if (!id) throw new Usage('providers test: give the provider ID');
        const r = await kit.withCore(values, (core) => liveProviders(core.rt).probe(id));
        kit.print(values, r, `${r.ok ? 'OK' : 'FAILED'}: ${r.message}`);
        return r.ok ? 0 : 1;
      }
      if (sub === 'cache-ttl') {
        const { values, positionals } = kit.parse(rest, {});
        const [kind, secs] = positionals;
        if (!kind || !(PROVIDER_KINDS as readonly string[]).includes(kind)) throw new Usage(`providers cache-ttl: KIND is one of ${PROVIDER_KINDS.join(', ')}`);
        const seconds = int(secs, 'providers cache-ttl: SECONDS');
        const ttl = await kit.withCore(values, (core) => liveProviders(core.rt).config.setCacheTtl(kind as (typeof PROVIDER_KINDS)[number], seconds));
        kit.print(values, ttl, `Cache TTL for ${kind}: ${ttl[kind as keyof typeof ttl]} s`);
        return 0;
      }
      throw new Usage('providers: expected list, set, remove, test or cache-ttl');
    } catch (e) {
      if (e instanceof Usage || e instanceof SyntaxError) {
        process.stderr.write(`vconsole: ${e.message}\nUsage:\n  ${USAGE}\n`);
        return 2;
      }
      throw e;
    }
  },
};
