// Ordered, forward-only schema migrations. Never edit a migration once released: its hash is recorded when it
// runs, and opening a database whose recorded hash differs fails loudly. Add a new migration instead.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

import { m001Foundation } from './migrations/001-foundation';
import { m002Billing } from './migrations/002-billing';
import { m003Webhooks } from './migrations/003-webhooks';
import { m004Routing } from './migrations/004-routing';
import { m005Providers } from './migrations/005-providers';
import { m006UserStatus } from './migrations/006-user-status';
import { m007TableVersions } from './migrations/007-table-versions';
import { m008SealedWebhookSecrets } from './migrations/008-sealed-webhook-secrets';
import { m009ProviderCa } from './migrations/009-provider-ca';
import { m010SearchProvenance } from './migrations/010-search-provenance';
import { m011WebhookOps } from './migrations/011-webhook-ops';
import { m013Audit } from './migrations/013-audit';
import { m014DemoData } from './migrations/014-demo-data';
import { m015ConsoleSessions } from './migrations/015-console-sessions';
import { m016PartialQueueIndexes } from './migrations/016-partial-queue-indexes';
import { m017RateLimitWindows } from './migrations/017-rate-limit-windows';
import { m018ChangeNotifications } from './migrations/018-change-notifications';
import { m019PgCounterOff } from './migrations/019-pg-counter-off';
import { m020SearchDeferred } from './migrations/020-search-deferred';
import { m021SearchDeleteWatermark } from './migrations/021-search-delete-watermark';
import { m022DeliveriesByWebhook } from './migrations/022-deliveries-by-webhook';
import { m023DeliveriesByStatus } from './migrations/023-deliveries-by-status';
import { m024VerificationsStatusCovering } from './migrations/024-verifications-status-covering';
import { m025DeliveriesListOrder } from './migrations/025-deliveries-list-order';
import { m026LoginReservations } from './migrations/026-login-reservations';
import { m027AuditChainsBeforeTrail } from './migrations/027-audit-chains-before-trail';

/** All migrations in order. A feature adds its file under migrations/ and one line here. */
export const MIGRATIONS: readonly Migration[] = [
  m001Foundation,
  m002Billing,
  m003Webhooks,
  m004Routing,
  m005Providers,
  m006UserStatus,
  m007TableVersions,
  m008SealedWebhookSecrets,
  m009ProviderCa,
  m010SearchProvenance,
  m011WebhookOps,
  m013Audit,
  m014DemoData,
  m015ConsoleSessions,
  m016PartialQueueIndexes,
  m017RateLimitWindows,
  m018ChangeNotifications,
  m019PgCounterOff,
  m020SearchDeferred,
  m021SearchDeleteWatermark,
  m022DeliveriesByWebhook,
  m023DeliveriesByStatus,
  m024VerificationsStatusCovering,
  m025DeliveriesListOrder,
  m026LoginReservations,
  m027AuditChainsBeforeTrail,
];
