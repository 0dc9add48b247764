// `vconsole webhooks listen|replay|recover|trigger`: wires the webhook developer tools into the command line.
import type { ExtraCommand } from './extra-commands';
import {
  parseListenArgs,
  parseRecoverArgs,
  parseReplayArgs,
  parseTriggerArgs,
  UsageError,
  type Output,
  webhooksListen,
  webhooksRecover,
  webhooksReplay,
  webhooksTrigger,
} from './webhooks-commands';

/**
 * Splits the options every command shares, `--data-dir DIR` (or `--data-dir=DIR`) and `--json`, from the command's
 * own arguments (parsed by hand in webhooks-commands.ts).
 */
function splitShared(args: string[]): { rest: string[]; shared: string[]; json: boolean } {
  const rest: string[] = [];
  const shared: string[] = [];
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--data-dir' && args[i + 1] !== undefined) {
      shared.push('--data-dir', args[i + 1]!);
      i++;
    } else if (a.startsWith('--data-dir=')) shared.push(a);
    else if (a === '--json') json = true;
    else rest.push(a);
  }
  if (json) shared.push('--json');
  return { rest, shared, json };
}

/** With --json, the command's text lines are left out and its result printed as JSON (errors still go to stderr). */
function outputFor(json: boolean): Output {
  return json ? { out: () => {}, err: (l) => process.stderr.write(`${l}\n`) } : { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
}

export const webhooksCommand: ExtraCommand = {
  name: 'webhooks',
  usage:
    'vconsole webhooks listen [--port N] [--secret whsec_… …] [--secrets-file FILE] [--verify both|x-signature|webhook-signature] [--forward-to URL]\n' +
    '  | webhooks replay DELIVERY_ID [--to http://localhost:PORT/…] [--resign] [--allow-webhook-host HOST:PORT]... [--data-dir DIR] [--json]\n' +
    '  | webhooks recover WEBHOOK_ID [--since ISO] [--until ISO] [--dry-run] [--data-dir DIR] [--json]\n' +
    '  | webhooks trigger verification.completed|verification.failed [--webhook WEBHOOK_ID] [--environment sandbox|live] [--data-dir DIR] [--json]',
  async run(args, kit) {
    const [sub, ...tail] = args;
    try {
      if (sub === 'listen') {
        // A receiver uses no data folder and prints as it runs: --data-dir and --json are accepted and ignored.
        const receiver = await webhooksListen(parseListenArgs(splitShared(tail).rest));
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await receiver.close();
        return 0;
      }
      if (sub === 'replay') {
        const { rest, shared, json } = splitShared(tail);
        const parsed = parseReplayArgs(rest);
        const { values } = kit.parse(shared, {});
        return await kit.withCore({ ...values, ...(parsed.allowHosts ? { 'allow-webhook-host': parsed.allowHosts } : {}) }, async (core) => {
          const r = await webhooksReplay(core.rt, parsed, outputFor(json));
          if (json) kit.print(values, r.result, '');
          return r.exitCode;
        });
      }
      if (sub === 'recover') {
        const { rest, shared, json } = splitShared(tail);
        const parsed = parseRecoverArgs(rest);
        const { values } = kit.parse(shared, {});
        return await kit.withCore(values, async (core) => {
          const r = await webhooksRecover(core.rt, parsed, outputFor(json));
          if (json) kit.print(values, { preview: r.preview, result: r.result }, '');
          return r.exitCode;
        });
      }
      if (sub === 'trigger') {
        const { rest, shared, json } = splitShared(tail);
        const parsed = parseTriggerArgs(rest);
        const { values } = kit.parse(shared, {});
        return await kit.withCore(values, async (core) => {
          const r = await webhooksTrigger(core.rt, parsed, () => kit.ownerPrincipal(core, parsed.environment), outputFor(json));
          if (json) kit.print(values, r.result, '');
          return r.exitCode;
        });
      }
      throw new UsageError('webhooks: expected `listen`, `replay DELIVERY_ID`, `recover WEBHOOK_ID` or `trigger EVENT`');
    } catch (e) {
      if (e instanceof UsageError) {
        process.stderr.write(`vconsole: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  },
};
