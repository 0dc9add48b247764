// `vconsole simulator`: runs the upstream simulator (src-main/simulator) in the foreground for demos and manual
// testing of live mode; prints the base URLs to configure and one line per upstream request.
import { FaultParseError, parseFault, startSimulator } from '../simulator';
import type { ExtraCommand } from './extra-commands';

function usageError(message: string): number {
  process.stderr.write(`vconsole: ${message}\nRun \`vconsole help\` for usage.\n`);
  return 2;
}

export const simulatorCommand: ExtraCommand = {
  name: 'simulator',
  usage: 'vconsole simulator [--port 4020] [--host 127.0.0.1] [--fault F [--fault-count N]] [--tls] [--api-key KEY]',
  async run(args, kit) {
    const { values } = kit.parse(args, {
      port: { type: 'string' },
      host: { type: 'string' },
      fault: { type: 'string' },
      'fault-count': { type: 'string' },
      tls: { type: 'boolean' },
      'api-key': { type: 'string' },
    });
    const port = values['port'] === undefined ? 4020 : Number(values['port']);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return usageError('--port must be an integer from 0 to 65535');
    const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
    const fault = typeof values['fault'] === 'string' ? values['fault'] : null;
    const countText = values['fault-count'];
    const faultCount = typeof countText === 'string' ? Number(countText) : undefined;
    if (faultCount !== undefined && (!Number.isInteger(faultCount) || faultCount < 1)) return usageError('--fault-count must be a positive integer');
    if (faultCount !== undefined && fault === null) return usageError('--fault-count needs --fault');
    try {
      if (fault !== null) parseFault(fault);
    } catch (e) {
      if (e instanceof FaultParseError) return usageError(e.message);
      throw e;
    }
    const apiKey = typeof values['api-key'] === 'string' ? values['api-key'] : undefined;
    // An empty key could never be sent (the adapters send no credential without a secret): every request would be 401.
    if (apiKey !== undefined && apiKey.trim() === '') return usageError('--api-key must not be empty (omit it to accept any key)');

    const sim = await startSimulator({
      port,
      host,
      tls: values['tls'] === true,
      fault,
      ...(faultCount !== undefined ? { faultCount } : {}),
      ...(apiKey !== undefined ? { apiKey } : {}),
      log: (line) => process.stdout.write(`${line}\n`),
    });
    const out = [
      `Upstream simulator listening on ${sim.url}`,
      `  generic  baseUrl: ${sim.baseUrls.generic}   (POST /v1/checks/{kind})`,
      `  epc-vop  baseUrl: ${sim.baseUrls.epcVop}   (POST /payee-verifications)`,
      `  uk-cop   baseUrl: ${sim.baseUrls.ukCop}   (POST /open-banking/v3.1/pisp/account-name-check)`,
      `  apiKey: ${apiKey === undefined ? 'any (Authorization: Bearer KEY or X-API-Key: KEY)' : 'the one given with --api-key (Bearer or X-API-Key)'}`,
      `  control: ${sim.url}/_sim/requests, ${sim.url}/_sim/faults${fault ? `  (fault: ${fault}${faultCount ? ` x${faultCount}` : ''})` : ''}`,
    ];
    if (sim.ca) out.push('  TLS certificate to trust (test only):', sim.ca.trimEnd());
    out.push('Press Ctrl+C to stop.');
    process.stdout.write(`${out.join('\n')}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await sim.stop();
    return 0;
  },
};
