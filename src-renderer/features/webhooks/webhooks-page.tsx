// Webhooks: the endpoints of the current environment (filter by status and event), create / edit / rotate /
// delete, the per-webhook delivery timeline with its detail drawer, and the local-receiver forwarding setting.
// Every state worth linking is in the address (app/routes.ts): `#/webhooks?status=failed` (list filters),
// `#/webhooks/wh_…?deliveries=failed` (one webhook's deliveries), `#/webhooks/wh_…/deliveries/del_…` (one delivery
// in the drawer, marked in the list) — the dashboard's failure rows link there. A failed webhook raises an alert here;
// re-enabling it offers recovery; any webhook can be sent a sample event.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ActionIcon, Badge, Box, Button, Code, EmptyState, Group, Menu, Select, Stack, Text } from '@mantine/core';
import { IconDots, IconHistory, IconKey, IconPencil, IconPlus, IconRefresh, IconSend, IconTrash, IconWebhook } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { Environment } from '../../../src-shared/schemas/common';
import { WEBHOOK_EVENTS, WebhookEventSchema, WebhookStatusSchema, type Webhook, type WebhookEvent, type WebhookStatus, type WebhookWithSecret } from '../../../src-shared/schemas/webhooks';
import { call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { PageTitle } from '../../app/page-title';
import { useConsole } from '../../app/store';
import { deliveryFilterOf, listPageOf, paths } from '../../app/routes';
import { DeliveriesPanel } from './deliveries-panel';
import { DeliveryDrawer } from './delivery-drawer';
import { ForwardCard } from './forward-card';
import { useWebhookAlerts, WebhookFailureAlerts } from './failure-alerts';
import { RecoverModal, type RecoverTarget } from './recover-modal';
import { ConfirmModal, RevealSecretModal, RotationHeaders, WebhookFormModal } from './webhook-modals';
import { useLiveVersion } from '../../app/live-store';
import { useCan } from '../../app/app-info';
import type { WebhookAlert } from '../../../src-shared/schemas/webhooks';

const PAGE_SIZE = 20;
/** How many webhooks a link scans for its target when it is not on the first page (the list's own limit is 100). */
const FOCUS_SCAN_PAGES = 10;

/**
 * Finds a webhook by id through the list channel (there is no single-webhook channel), whatever page it is on, with
 * its place in the unfiltered list.
 */
async function findWebhook(environment: Environment, id: string): Promise<{ webhook: Webhook; index: number } | null> {
  for (let p = 0; p < FOCUS_SCAN_PAGES; p++) {
    const res = await call('webhooks:list', { environment, query: { limit: 100, offset: p * 100 } });
    const at = res.data.findIndex((w) => w.id === id);
    if (at >= 0) return { webhook: res.data[at]!, index: p * 100 + at };
    if (!res.pagination.hasMore) return null;
  }
  return null;
}
export const WEBHOOK_STATUS_COLOR: Record<WebhookStatus, string> = { active: 'green', inactive: 'gray', failed: 'red' };

export function WebhooksPage() {
  const environment = useConsole((s) => s.environment);
  const navigate = useNavigate();
  const location = useLocation();
  const [search] = useSearchParams();
  const [routeWebhook, , routeDelivery] = (useParams()['*'] ?? '').split('/');
  const selectedId = routeWebhook || null;
  const openDelivery = routeDelivery || null;
  const deliveriesFilter = deliveryFilterOf(search.get('deliveries'));
  const status = search.get('status');
  const event = search.get('event');
  /** The selected webhook when it is not on the shown page of the list (a link to it, or a later page). */
  const [pinned, setPinned] = useState<Webhook | null>(null);
  // The list's page is in the address too (a reload or Back after paging kept only page 1).
  const page = listPageOf(search.get('page'));
  const [rows, setRows] = useState<Webhook[] | null>(null);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [formTarget, setFormTarget] = useState<Webhook | 'new' | null>(null);
  const [revealed, setRevealed] = useState<{ webhook: WebhookWithSecret & { previousSecret?: string | null }; rotated: boolean } | null>(null);
  const [recoverTarget, setRecoverTarget] = useState<RecoverTarget | null>(null);
  const can = useCan();
  const [alertsKey, setAlertsKey] = useState(0);
  const { alerts } = useWebhookAlerts(environment, alertsKey);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  // The delivery last opened stays marked in the list after its drawer closes, so the eye finds it again.
  const [marked, setMarked] = useState<string | null>(openDelivery);
  useEffect(() => {
    if (openDelivery) setMarked(openDelivery);
  }, [openDelivery]);
  const [forwardUrl, setForwardUrl] = useState<string | null>(null);
  const [deliveriesKey, setDeliveriesKey] = useState(0);
  const setSelectedId = useCallback(
    (id: string | null) => void navigate(id ? paths.webhook(id, null, { status, event, page }) : paths.webhooks({ status, event, page })),
    [navigate, status, event, page],
  );
  const setOpenDelivery = useCallback(
    (id: string | null) => {
      if (!selectedId) return;
      void navigate(id ? paths.delivery(selectedId, id, deliveriesFilter, { status, event, page }) : paths.webhook(selectedId, deliveriesFilter, { status, event, page }));
    },
    [navigate, selectedId, deliveriesFilter, status, event, page],
  );
  // Paging replaces the entry (like the filters while nothing is selected), keeping the selection and its drawer.
  const setPage = useCallback(
    (n: number) => {
      const next = new URLSearchParams(search);
      if (n > 1) next.set('page', String(n));
      else next.delete('page');
      const q = next.toString();
      void navigate({ pathname: location.pathname, search: q ? `?${q}` : '' }, { replace: true });
    },
    [navigate, search, location.pathname],
  );
  const closeDrawer = useCallback(() => setOpenDelivery(null), [setOpenDelivery]);
  const setFilters = (f: { status: string | null; event: string | null }) => {
    // New filters start the list over at its first page (paths.webhooks leaves the page out).
    void navigate(paths.webhooks(f), { replace: selectedId === null && location.pathname === '/webhooks' });
  };
  const filtered = status !== null || event !== null;

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const s = WebhookStatusSchema.safeParse(status);
      const ev = WebhookEventSchema.safeParse(event);
      const res = await call('webhooks:list', {
        environment,
        query: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, ...(s.success ? { status: s.data } : {}), ...(ev.success ? { event: ev.data } : {}) },
      });
      setRows(res.data);
      setTotal(res.pagination.total);
    } catch (e) {
      notifyError(e, 'Could not load webhooks');
    } finally {
      setLoading(false);
    }
  }, [environment, status, event, page]);

  // A webhook created elsewhere, or turning failed, shows without a reload.
  const live = useLiveVersion('webhooks');
  useEffect(() => {
    void load();
  }, [load, live]);

  const refreshAll = useCallback(async () => {
    setAlertsKey((k) => k + 1);
    setDeliveriesKey((k) => k + 1);
    await load();
  }, [load]);

  // A link that names its environment (`?env=live`: the desktop app's failed-webhook alert and notification) opens
  // there: the other environment's webhook waits for the switch (live asking first, as always), as the palette's does.
  const envAsked = search.get('env');
  const openIn = useConsole((s) => s.openIn);
  useEffect(() => {
    if (envAsked === null) return;
    const rest = new URLSearchParams(search);
    rest.delete('env');
    const target = `${location.pathname}${rest.size > 0 ? `?${rest.toString()}` : ''}`;
    if ((envAsked === 'sandbox' || envAsked === 'live') && envAsked !== environment) {
      // The list meanwhile (the id names nothing here), in the link's entry; the webhook takes that entry once switched,
      // so Back returns to where the user was, not to the list.
      void navigate(paths.webhooks(), { replace: true });
      openIn(envAsked, target, { replace: true });
    } else void navigate(target, { replace: true });
  }, [envAsked]); // once per address that names an environment

  // A webhook belongs to one environment: switching leaves its page (the address would name nothing).
  const envSeen = useRef(environment);
  useEffect(() => {
    if (envSeen.current === environment) return;
    envSeen.current = environment;
    if (selectedId) void navigate(paths.webhooks());
  }, [environment, selectedId, navigate]);

  // The selected webhook is shown from the list's page when it is there, else looked up once by id.
  const onPage = rows?.some((w) => w.id === selectedId) ?? false;
  useEffect(() => {
    if (!selectedId || onPage || rows === null || pinned?.id === selectedId) return;
    let live = true;
    // A link that names no page or filter (from the dashboard, the palette, an alert) opens the list's page that holds
    // the webhook, so its row is shown and marked; otherwise the panel shows it beside the page asked for.
    const unpaged = !search.has('page') && !status && !event;
    findWebhook(environment, selectedId)
      .then((found) => {
        if (!live) return;
        if (found) {
          setPinned(found.webhook);
          const holding = Math.floor(found.index / PAGE_SIZE) + 1;
          if (unpaged && holding !== page) {
            const q = { status, event, page: holding };
            void navigate(openDelivery ? paths.delivery(selectedId, openDelivery, deliveriesFilter, q) : paths.webhook(selectedId, deliveriesFilter, q), { replace: true });
          }
        } else notifyError('It may have been deleted, or it belongs to the other environment.', 'That webhook is not in this list');
      })
      .catch((e: unknown) => notifyError(e, 'Could not open the webhook'));
    return () => {
      live = false;
    };
  }, [selectedId, onPage, rows, pinned?.id, environment]);

  const selected = rows?.find((w) => w.id === selectedId) ?? (pinned?.id === selectedId ? pinned : null);

  /** Re-enabling a failed webhook offers recovery in the same dialog. */
  function reEnable(w: Webhook) {
    setRecoverTarget({ webhook: w });
  }

  async function trigger(w: Webhook, event: WebhookEvent) {
    try {
      const r = await call('webhooks:trigger', { environment, event, id: w.id });
      notifySuccess(`Sample ${event} queued for ${w.url} (${r.deliveries[0]?.deliveryId ?? 'no delivery'}), signed like every delivery.`, 'Sample event');
      setSelectedId(w.id);
      setDeliveriesKey((k) => k + 1);
    } catch (e) {
      notifyError(e, 'Could not send the sample event');
    }
  }

  return (
    <Stack>
      <PageTitle
        title="Webhooks"
        actions={
          <Group>
            <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void refreshAll()} loading={loading} data-testid="webhooks-refresh">
              Refresh
            </Button>
            <Button data-testid="create-webhook-button" leftSection={<IconPlus size={16} />} onClick={() => setFormTarget('new')}>
              Create webhook
            </Button>
          </Group>
        }
      />
      <Text c="dimmed" size="sm">
        Endpoints of the <b>{environment}</b> environment receive a signed POST when an asynchronous verification finishes. Check the{' '}
        <Code>X-Signature</Code> (or <Code>webhook-signature</Code>) header against the endpoint’s secrets: after a rotation, X-Signature keeps the
        old secret for 24 hours while webhook-signature carries both.
      </Text>
      <WebhookFailureAlerts alerts={alerts} {...(can('webhooks:recover') ? { onRecover: (a: WebhookAlert) => setRecoverTarget({ webhook: { id: a.webhookId, url: a.url, status: 'failed' } }) } : {})} />
      <ForwardCard onChange={setForwardUrl} />
      {rows !== null && rows.length === 0 && !filtered && page === 1 ? (
        <EmptyState
          data-testid="webhooks-empty"
          icon={<IconWebhook size={28} />}
          title={`No ${environment} webhooks yet`}
          description="Create a webhook to be told when verifications finish, instead of polling. You will get a signing secret to check each delivery."
        >
          <EmptyState.Actions>
            <Button onClick={() => setFormTarget('new')}>Create your first webhook</Button>
          </EmptyState.Actions>
        </EmptyState>
      ) : (
        <>
          <Group align="flex-end" gap="sm" data-testid="webhooks-filters">
            <Select
              label="Status"
              placeholder="Any"
              clearable
              w={150}
              data={WebhookStatusSchema.options}
              value={status}
              onChange={(v) => setFilters({ status: v, event })}
              data-testid="webhooks-status-filter"
            />
            <Select
              label="Event"
              placeholder="Any"
              clearable
              w={230}
              data={[...WEBHOOK_EVENTS]}
              value={event}
              onChange={(v) => setFilters({ status, event: v })}
              data-testid="webhooks-event-filter"
            />
            <Button variant="subtle" disabled={!filtered} onClick={() => setFilters({ status: null, event: null })}>
              Clear
            </Button>
          </Group>
          <Box data-testid="webhooks-table">
            <DataTable<Webhook>
              withTableBorder
              borderRadius="sm"
              highlightOnHover
              minHeight={rows === null || rows.length === 0 ? 160 : undefined}
              fetching={loading && rows === null}
              records={rows ?? []}
              idAccessor="id"
              totalRecords={total}
              recordsPerPage={PAGE_SIZE}
              page={page}
              onPageChange={setPage}
              noRecordsText="No webhooks match these filters — clear them to see all"
              onRowClick={({ record }) => setSelectedId(record.id)}
              rowStyle={(w) => (w.id === selectedId ? { background: 'var(--mantine-primary-color-light)' } : undefined)}
              customRowAttributes={(w) => ({ 'data-testid': `webhook-row-${w.id}`, 'data-status': w.status })}
              columns={[
                {
                  accessor: 'url',
                  title: 'Endpoint',
                  render: (w) => (
                    <Stack gap={0}>
                      <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
                        {w.url}
                      </Text>
                      {w.description && (
                        <Text size="xs" c="dimmed">
                          {w.description}
                        </Text>
                      )}
                    </Stack>
                  ),
                },
                {
                  accessor: 'events',
                  title: 'Events',
                  width: 200,
                  // Secondary columns give way on narrow windows; the endpoint, its status and actions never do.
                  visibleMediaQuery: '(min-width: 62em)',
                  render: (w) => (
                    <Stack gap={2}>
                      {w.events.map((e) => (
                        <Code key={e}>{e}</Code>
                      ))}
                    </Stack>
                  ),
                },
                {
                  accessor: 'status',
                  title: 'Status',
                  width: 100,
                  render: (w) => (
                    <Badge color={WEBHOOK_STATUS_COLOR[w.status]} variant={w.status === 'inactive' ? 'outline' : 'light'} data-testid={`webhook-status-${w.id}`}>
                      {w.status}
                    </Badge>
                  ),
                },
                {
                  accessor: 'secretPrefix',
                  title: 'Secret',
                  width: 150,
                  visibleMediaQuery: '(min-width: 75em)',
                  render: (w) => (
                    <Stack gap={0}>
                      <Code>{w.secretPrefix}…</Code>
                      {w.previousSecretExpiresAt && (
                        <Text size="xs" c="dimmed" data-testid={`webhook-overlap-${w.id}`}>
                          old secret still signs X-Signature (and webhook-signature, beside the new one) until {formatTime(w.previousSecretExpiresAt)}
                        </Text>
                      )}
                    </Stack>
                  ),
                },
                { accessor: 'createdAt', title: 'Created', noWrap: true, visibleMediaQuery: '(min-width: 88em)', render: (w) => formatTime(w.createdAt) },
                {
                  accessor: 'actions',
                  title: '',
                  textAlign: 'right',
                  render: (w) => (
                    <Group gap={4} justify="flex-end" wrap="nowrap" onClick={(e) => e.stopPropagation()}>
                      {w.status === 'failed' && (
                        <Button size="xs" color="green" variant="light" data-testid={`webhook-reenable-${w.id}`} onClick={() => void reEnable(w)}>
                          Re-enable
                        </Button>
                      )}
                      <Button size="xs" variant="light" data-testid={`webhook-deliveries-${w.id}`} onClick={() => setSelectedId(w.id)}>
                        Deliveries
                      </Button>
                      <Menu position="bottom-end" withinPortal>
                        <Menu.Target>
                          <ActionIcon variant="default" size="md" aria-label={`More actions for ${w.url}`} data-testid={`webhook-menu-${w.id}`}>
                            <IconDots size={16} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item leftSection={<IconPencil size={14} />} data-testid={`webhook-edit-${w.id}`} onClick={() => setFormTarget(w)}>
                            Edit
                          </Menu.Item>
                          <Menu.Item leftSection={<IconKey size={14} />} data-testid={`webhook-rotate-${w.id}`} onClick={() => setRotating(w)}>
                            Rotate secret
                          </Menu.Item>
                          <Menu.Item leftSection={<IconHistory size={14} />} data-testid={`webhook-recover-${w.id}`} disabled={w.status === 'inactive' || !can('webhooks:recover')} onClick={() => setRecoverTarget({ webhook: w })}>
                            Recover events…
                          </Menu.Item>
                          <Menu.Label>Send sample event</Menu.Label>
                          {w.events.map((ev) => (
                            <Menu.Item
                              key={ev}
                              leftSection={<IconSend size={14} />}
                              disabled={w.status !== 'active'}
                              data-testid={`webhook-trigger-${ev}-${w.id}`}
                              onClick={() => void trigger(w, ev)}
                            >
                              {ev}
                            </Menu.Item>
                          ))}
                          <Menu.Divider />
                          <Menu.Item color="red" leftSection={<IconTrash size={14} />} data-testid={`webhook-delete-${w.id}`} onClick={() => setDeleting(w)}>
                            Delete
                          </Menu.Item>
                        </Menu.Dropdown>
                      </Menu>
                    </Group>
                  ),
                },
              ]}
            />
          </Box>
          {selected ? (
            <DeliveriesPanel
              webhook={selected}
              environment={environment}
              reloadKey={deliveriesKey}
              onOpen={setOpenDelivery}
              initialStatus={deliveriesFilter}
              onStatusChange={(st) => void navigate(paths.webhook(selected.id, deliveryFilterOf(st), { status, event }), { replace: true })}
              highlightId={marked}
            />
          ) : (
            (rows?.length ?? 0) > 0 && (
              <Text size="sm" c="dimmed" data-testid="deliveries-hint">
                Select a webhook to see its deliveries on a timeline.
              </Text>
            )
          )}
        </>
      )}

      <WebhookFormModal
        target={formTarget}
        onClose={() => setFormTarget(null)}
        onCreated={(w) => {
          setFormTarget(null);
          setRevealed({ webhook: w, rotated: false });
          setSelectedId(w.id);
          void load();
        }}
        onUpdated={(w) => {
          const wasFailed = formTarget !== null && formTarget !== 'new' && formTarget.status === 'failed';
          setFormTarget(null);
          notifySuccess(
            wasFailed && w.status === 'active'
              ? `${w.url} is active again. New events will be delivered; missed ones are not redelivered.`
              : `Webhook ${w.url} saved.`,
          );
          void load();
        }}
      />
      <RevealSecretModal revealed={revealed} onClose={() => setRevealed(null)} />
      <RecoverModal
        target={recoverTarget}
        environment={environment}
        onClose={() => setRecoverTarget(null)}
        onDone={() => {
          if (recoverTarget) setSelectedId(recoverTarget.webhook.id);
          setRecoverTarget(null);
          void refreshAll();
        }}
      />
      <ConfirmModal
        opened={rotating !== null}
        title="Rotate signing secret"
        confirmLabel="Rotate secret"
        color="orange"
        testId="confirm-rotate"
        onClose={() => setRotating(null)}
        onConfirm={async () => {
          if (!rotating) return;
          try {
            const w = await call('webhooks:rotate', { environment, id: rotating.id });
            setRotating(null);
            setRevealed({ webhook: w, rotated: true });
            await load();
          } catch (e) {
            notifyError(e, 'Could not rotate the secret');
          }
        }}
      >
        <Stack gap="xs">
          <Text size="sm">
            Create a new signing secret for <Code>{rotating?.url}</Code>? It is shown once, with the old one, so your receiver can hold both. For
            24 hours both are in use; nothing is lost as long as the receiver accepts either:
          </Text>
          <RotationHeaders until={null} />
        </Stack>
      </ConfirmModal>
      <ConfirmModal
        opened={deleting !== null}
        title="Delete webhook"
        confirmLabel="Delete webhook"
        testId="confirm-delete-webhook"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          // The selection is left before the delete: its deliveries are dropped by it, and the live update that
          // follows would reload the panel (or the page look the webhook up) for an id that no longer exists.
          const wasSelected = selectedId === deleting.id;
          if (wasSelected) setSelectedId(null);
          try {
            await call('webhooks:delete', { environment, id: deleting.id });
            notifySuccess(`Webhook ${deleting.url} deleted. No further events are sent to it.`);
            setDeleting(null);
            await refreshAll();
          } catch (e) {
            if (wasSelected) setSelectedId(deleting.id);
            notifyError(e, 'Could not delete the webhook');
          }
        }}
      >
        <Text size="sm">
          Delete <Code>{deleting?.url}</Code>? Events are no longer sent to it and pending deliveries stop. This cannot be undone.
        </Text>
      </ConfirmModal>
      <DeliveryDrawer
        id={openDelivery}
        environment={environment}
        forwardUrl={forwardUrl}
        onClose={closeDrawer}
        onChanged={() => setDeliveriesKey((k) => k + 1)}
      />
    </Stack>
  );
}
