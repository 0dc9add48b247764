// Tiny HTTP helpers shared by the simulator tests: they speak to the simulator over real sockets.
import type { SimulatorHandle } from '../../../src-main/simulator';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function post(
  sim: SimulatorHandle,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Reply> {
  const res = await fetch(sim.url + path, {
    method: 'POST',
    headers: { authorization: 'Bearer test-key', 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null; // not JSON: the malformed fault's whole point
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function generic(kind: string, query: Record<string, unknown>, reference = 'vrf_test'): unknown {
  return { reference, kind, country: 'NG', query };
}

export function cop(identification: string, name: string, accountType: 'Personal' | 'Business' = 'Personal', extra: Record<string, unknown> = {}): unknown {
  return { Data: { SchemeName: 'SortCodeAccountNumber', AccountType: accountType, Identification: identification, Name: name, ...extra } };
}

export function vop(iban: string, partyName: string, requestId = '3f1c2a5e-0000-4000-8000-000000000001'): unknown {
  return { requestId, partyName, partyAccount: { iban } };
}
