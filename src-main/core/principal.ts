// Who is calling: an API key (acts as DEVELOPER of its organization and environment), a signed-in user, or the
// local console (acts as the installation's owner). Every query is scoped by organizationId and environment.
import type { Environment } from '../../src-shared/schemas/common';
import type { Role } from '../../src-shared/schemas/auth';
import { AppError } from '../../src-shared/app-error';
import type { Door } from '../../src-shared/channels-history';

export interface Principal {
  kind: 'apiKey' | 'user' | 'console';
  organizationId: string;
  environment: Environment;
  role: Role;
  keyId?: string;
  /** The API key's name, when authentication read it (provenance records it without another query). */
  keyName?: string;
  userId?: string;
  sessionId?: string;
  /** The door the call came through, when the kind does not say it (the CLI acts as `console` through its own door). */
  door?: Door;
}

export function requireRole(p: Principal, roles: readonly Role[]): void {
  if (p.kind === 'apiKey' || !roles.includes(p.role)) throw new AppError('FORBIDDEN');
}
