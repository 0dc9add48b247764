// The upstream simulator's library entry: `startSimulator()` for tests, plus the protocol's pure answer rules.
export { startSimulator, SIM_PATHS, IDEMPOTENCY_HEADERS } from './server';
export type { SimulatorOptions, SimulatorHandle, SimRequest, SimApi } from './server';
export { parseFault, formatFault, FaultParseError } from './faults';
export type { Fault, FaultSpec } from './faults';
export { answerGeneric, answerVop, answerCop, compareNames, SEEDED_ACCOUNTS, SEEDED_PHONES, SEEDED_IDENTITIES } from './directory';
export type { SimSeed, GenericAnswer, GenericKind, GenericResult, VopCode, CopReason, AccountEntry, PersonEntry } from './directory';
