// PostgreSQL migration 18: the database announces its own changes to every instance of a team server
// (docs/team-server.md, "Live events and settings across instances"). Triggers send NOTIFY inside the transaction
// that changes the rows, so an announcement is delivered at its commit, to every instance, and never for a
// rollback (or for an attempt of a serializable transaction that was run again); every writer is covered — any
// instance, any door, a CLI command — without a call at each write.
// - `vc_events`: the changes the console shows (docs/console-live.md), the counterpart of the temporary triggers
//   SQLite's service connection installs (core/events/live-events.ts). Sent only while some instance records
//   (holds the demand lock, store/notifications.ts): a NOTIFY makes the commit take a cluster-wide lock held until
//   after the commit, so the writes pay it only while a console somewhere is watching. One statement's changes travel as JSON arrays
//   of row events {o: organization, e: environment, k: kind, v/d/w: verification, delivery, webhook ids}, cut into
//   messages of at most about 7,600 bytes (NOTIFY refuses 8,000). A statement that changes more than 100 rows
//   (a bulk update, `db copy`) sends one event per organization, environment, kind and webhook, without the row ids.
// - `vc_settings`: a statement changed the `settings` table; every instance reloads what it keeps from it.
// The functions keep the search_path of the migration: a session with another search_path (a tool, a schema of its
// own) still finds them and the tables. SQLite's migration 18 is a no-op twin (versions stay paired).
// Released: never edit; add a new migration.
import type { PgMigration } from '../migrate';

export const pg018ChangeNotifications: PgMigration = {
  version: 18,
  name: 'change-notifications',
  sql: `
CREATE FUNCTION vc_live_watched() RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
  -- An instance that records holds the demand lock ("vc", 3 = 30307, 3) in shared mode: then it cannot be taken
  -- exclusively. Taken and given back at once otherwise (another writer holding it for that instant reads as "watched").
  IF pg_try_advisory_lock(30307, 3) THEN
    PERFORM pg_advisory_unlock(30307, 3);
    RETURN false;
  END IF;
  RETURN true;
END
$fn$;

CREATE FUNCTION vc_live_send(events jsonb[]) RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF coalesce(cardinality(events), 0) = 0 THEN RETURN; END IF;
  IF cardinality(events) > 100 THEN
    events := ARRAY(SELECT e - 'v' - 'd' FROM unnest(events) WITH ORDINALITY u(e, i) GROUP BY 1 ORDER BY min(i));
  ELSE
    events := ARRAY(SELECT e FROM unnest(events) WITH ORDINALITY u(e, i) GROUP BY 1 ORDER BY min(i));
  END IF;
  PERFORM pg_notify('vc_events', '[' || string_agg(p, ',' ORDER BY i) || ']')
    FROM (SELECT p, i, sum(octet_length(p) + 1) OVER (ORDER BY i) / 7000 AS chunk
            FROM (SELECT CASE WHEN octet_length(e::text) <= 600 THEN e::text ELSE (e - 'v' - 'd' - 'w')::text END AS p, i
                    FROM unnest(events) WITH ORDINALITY u(e, i)) r
           WHERE octet_length(p) <= 600) c
   GROUP BY chunk;
END
$fn$;

CREATE FUNCTION vc_live_verifications() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF NOT vc_live_watched() THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', organization_id, 'e', environment, 'k', 'verification.created', 'v', id) FROM new_rows));
  ELSE
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', n.organization_id, 'e', n.environment, 'k', 'verification.updated', 'v', n.id)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status IS DISTINCT FROM o.status OR n.result IS DISTINCT FROM o.result));
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER verifications_live_insert AFTER INSERT ON verifications REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_verifications();
CREATE TRIGGER verifications_live_update AFTER UPDATE ON verifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_verifications();

CREATE FUNCTION vc_live_deliveries() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF NOT vc_live_watched() THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', organization_id, 'e', environment, 'k', 'delivery.created', 'v', verification_id, 'd', id, 'w', webhook_id) FROM new_rows));
  ELSE
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', n.organization_id, 'e', n.environment, 'k', 'delivery.updated', 'v', n.verification_id, 'd', n.id, 'w', n.webhook_id)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status IS DISTINCT FROM o.status OR n.attempts IS DISTINCT FROM o.attempts OR n.last_attempt_at IS DISTINCT FROM o.last_attempt_at));
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER webhook_deliveries_live_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_deliveries();
CREATE TRIGGER webhook_deliveries_live_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_deliveries();

CREATE FUNCTION vc_live_attempts() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF NOT vc_live_watched() THEN RETURN NULL; END IF;
  PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', d.organization_id, 'e', d.environment, 'k', 'delivery.updated', 'v', d.verification_id, 'd', d.id, 'w', d.webhook_id)
    FROM new_rows a JOIN webhook_deliveries d ON d.id = a.delivery_id));
  RETURN NULL;
END
$fn$;
CREATE TRIGGER webhook_attempts_live_insert AFTER INSERT ON webhook_attempts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_attempts();

CREATE FUNCTION vc_live_webhooks() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF NOT vc_live_watched() THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', organization_id, 'e', environment, 'k', 'webhook.updated', 'w', id) FROM new_rows));
  ELSE
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', n.organization_id, 'e', n.environment, 'k', 'webhook.updated', 'w', n.id)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status IS DISTINCT FROM o.status OR n.url IS DISTINCT FROM o.url OR n.events IS DISTINCT FROM o.events
         OR n.description IS DISTINCT FROM o.description OR n.deleted_at IS DISTINCT FROM o.deleted_at));
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER webhooks_live_insert AFTER INSERT ON webhooks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_webhooks();
CREATE TRIGGER webhooks_live_update AFTER UPDATE ON webhooks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_webhooks();

CREATE FUNCTION vc_live_wallets() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  IF NOT vc_live_watched() THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', organization_id, 'k', 'wallet.updated') FROM new_rows));
  ELSE
    PERFORM vc_live_send(ARRAY(SELECT jsonb_build_object('o', n.organization_id, 'k', 'wallet.updated')
      FROM new_rows n JOIN old_rows o ON o.organization_id = n.organization_id
      WHERE n.balance IS DISTINCT FROM o.balance OR n.status IS DISTINCT FROM o.status));
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER wallets_live_insert AFTER INSERT ON wallets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_wallets();
CREATE TRIGGER wallets_live_update AFTER UPDATE ON wallets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vc_live_wallets();

CREATE FUNCTION vc_settings_notify() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
  PERFORM pg_notify('vc_settings', '');
  RETURN NULL;
END
$fn$;
CREATE TRIGGER settings_notify AFTER INSERT OR UPDATE OR DELETE ON settings
  FOR EACH STATEMENT EXECUTE FUNCTION vc_settings_notify();
`,
};
