// `vconsole webhooks listen|replay`: wires the webhook developer tools into the command line.
import type { ExtraCommand } from './extra-commands';
import { parseListenArgs, parseReplayArgs, UsageError, webhooksListen, webhooksReplay } from './webhooks-commands';

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
    'vconsole webhooks listen [--port N] [--secret whsec_…] [--forward-to URL] | webhooks replay DELIVERY_ID [--to http://localhost:PORT/…] [--resign]',
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
      throw new UsageError('webhooks: expected `listen` or `replay DELIVERY_ID`');
    } catch (e) {
      if (e instanceof UsageError) {
        process.stderr.write(`vconsole: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  },
};
