// Who is calling: an API key (acts as DEVELOPER of its organization and environment), a signed-in user, or the
// local console (acts as the installation's owner). Every query is scoped by organizationId and environment.
import type { Environment } from '../../src-shared/schemas/common';
import type { Role } from '../../src-shared/schemas/auth';
import { AppError } from '../../src-shared/app-error';

export interface Principal {
  kind: 'apiKey' | 'user' | 'console';
  organizationId: string;
  environment: Environment;
  role: Role;
  keyId?: string;
  userId?: string;
  sessionId?: string;
}

export function requireRole(p: Principal, roles: readonly Role[]): void {
  if (p.kind === 'apiKey' || !roles.includes(p.role)) throw new AppError('FORBIDDEN');
}
