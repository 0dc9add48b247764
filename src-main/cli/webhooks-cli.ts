// `vconsole webhooks listen|replay|recover|trigger`: wires the webhook developer tools into the command line.
import type { ExtraCommand } from './extra-commands';
import {
  parseListenArgs,
  parseRecoverArgs,
  parseReplayArgs,
  parseTriggerArgs,
  UsageError,
  webhooksListen,
  webhooksRecover,
  webhooksReplay,
  webhooksTrigger,
} from './webhooks-commands';

/** Splits `--data-dir DIR` (shared by every command) from the command's own arguments. */
function splitDataDir(args: string[]): { rest: string[]; dataDir: string[] } {
  const rest: string[] = [];
  const dataDir: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir' && args[i + 1] !== undefined) {
      dataDir.push('--data-dir', args[i + 1]!);
      i++;
    } else rest.push(args[i]!);
  }
  return { rest, dataDir };
}

export const webhooksCommand: ExtraCommand = {
  name: 'webhooks',
  usage:
    'vconsole webhooks listen [--port N] [--secret whsec_… …] [--secrets-file FILE] [--verify both|x-signature|webhook-signature] [--forward-to URL]\n' +
    '  | webhooks replay DELIVERY_ID [--to http://localhost:PORT/…] [--resign]\n' +
    '  | webhooks recover WEBHOOK_ID [--since ISO] [--until ISO] [--dry-run]\n' +
    '  | webhooks trigger verification.completed|verification.failed [--webhook WEBHOOK_ID] [--environment sandbox|live]',
  async run(args, kit) {
    const [sub, ...tail] = args;
    try {
      if (sub === 'listen') {
        const receiver = await webhooksListen(parseListenArgs(tail));
        await new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await receiver.close();
        return 0;
      }
      if (sub === 'replay') {
        const { rest, dataDir } = splitDataDir(tail);
        const parsed = parseReplayArgs(rest);
        const { values } = kit.parse(dataDir, {});
        return await kit.withCore(values, async (core) => (await webhooksReplay(core.rt, parsed)).exitCode);
      }
      if (sub === 'recover') {
        const { rest, dataDir } = splitDataDir(tail);
        const parsed = parseRecoverArgs(rest);
        const { values } = kit.parse(dataDir, {});
        return await kit.withCore(values, async (core) => (await webhooksRecover(core.rt, parsed)).exitCode);
      }
      if (sub === 'trigger') {
        const { rest, dataDir } = splitDataDir(tail);
        const parsed = parseTriggerArgs(rest);
        const { values } = kit.parse(dataDir, {});
        return await kit.withCore(values, async (core) => (await webhooksTrigger(core.rt, parsed, () => kit.ownerPrincipal(core, parsed.environment))).exitCode);
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
