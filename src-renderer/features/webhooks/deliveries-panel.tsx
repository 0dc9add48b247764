// The delivery timeline of one webhook: its deliveries (filterable by status, paged), each with its attempts on
// a time axis, the last response code and duration; clicking one opens the detail drawer. A link may start it
// filtered to a status with one delivery marked.
import { useCallback, useEffect, useState } from 'react';
import { Badge, Box, Button, Card, Code, EmptyState, Group, Pagination, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { IconRefresh, IconSend } from '@tabler/icons-react';
import type { Environment } from '../../../src-shared/schemas/common';
import { DeliveryStatusSchema, type DeliveryDetail, type Webhook } from '../../../src-shared/schemas/webhooks';
import { call, ConsoleError } from '../../client/bridge';
import { formatTime, STATUS_COLOR } from '../../app/format';
import { IdWithCopy } from '../../app/copy-id';
import { notifyError } from '../../app/notify';
import { usePacedLiveVersion } from '../../app/live-store';
import { AttemptTrack, TrackLegend } from './attempt-track';
import { deliveryFate, DROP_LABEL, formatDuration, ORIGIN_LABEL } from './timeline';

const PAGE_SIZE = 10;

/** A delivery's status as a person reads it: "success" alone could be the verification's. */
export const DELIVERY_LABEL: Record<DeliveryDetail['status'], string> = { success: 'Delivered', failed: 'Failed', pending: 'Pending' };

export function DeliveriesPanel(props: {
  webhook: Webhook;
  environment: Environment;
  reloadKey: number;
  onOpen: (id: string) => void;
  /** The status filter to start with (a link's), re-applied when the webhook changes. */
  initialStatus?: string | null;
  /** A delivery to mark (the one a link came for). */
  highlightId?: string | null;
  /** Told when the user changes the status filter, so the address can carry it. */
  onStatusChange?: (status: string | null) => void;
}) {
  const { webhook, environment, reloadKey, onOpen, initialStatus = null, highlightId = null, onStatusChange } = props;
  const [status, setStatus] = useState<string | null>(initialStatus);
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<DeliveryDetail[] | null>(null);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);

  // New deliveries and recorded attempts of this webhook redraw the timeline by themselves (docs/console-live.md),
  // paced by what a load costs (a page with its deliveries' attempt logs): live-pacer.ts.
  const { version: live, track } = usePacedLiveVersion(`deliveries:${webhook.id}`);
  const load = useCallback(async () => {
    setLoading(true);
    try {
      const parsed = DeliveryStatusSchema.safeParse(status);
      // The page with each delivery's attempt log, to draw its attempts: one call.
      const res = await track(
        call('webhooks:timeline', {
          environment,
          webhookId: webhook.id,
          query: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, ...(parsed.success ? { status: parsed.data } : {}) },
        }),
      );
      setRows(res.data);
      setTotal(res.pagination.total);
    } catch (e) {
      // The webhook is gone (deleted here or elsewhere): the page drops the selection, so this is no error to show.
      if (e instanceof ConsoleError && e.code === 'NOT_FOUND') return;
      notifyError(e, 'Could not load the deliveries');
    } finally {
      setLoading(false);
    }
  }, [environment, webhook.id, status, page, track]);

  useEffect(() => {
    void load();
  }, [load, reloadKey, live]);

  useEffect(() => {
    setPage(1);
    setStatus(initialStatus);
  }, [webhook.id, initialStatus]);

  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  return (
    <Paper withBorder p="md" radius="sm" data-testid="deliveries-panel">
      <Stack>
        <Group justify="space-between" align="flex-end">
          <Stack gap={2}>
            <Title order={4}>Deliveries</Title>
            <Text size="sm" c="dimmed">
              to <Code>{webhook.url}</Code>
            </Text>
          </Stack>
          <Group align="flex-end" gap="sm">
            <Select
              label="Status"
              placeholder="Any"
              clearable
              w={150}
              data={DeliveryStatusSchema.options}
              value={status}
              onChange={(v) => {
                setStatus(v);
                setPage(1);
                onStatusChange?.(v);
              }}
              data-testid="deliveries-status-filter"
            />
            <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading} data-testid="deliveries-refresh">
              Refresh
            </Button>
          </Group>
        </Group>
        <TrackLegend />
        {rows !== null && rows.length === 0 ? (
          <EmptyState
            data-testid="deliveries-empty"
            icon={<IconSend size={28} />}
            title={status ? `No ${status} deliveries` : 'No deliveries yet'}
            description={
              status
                ? 'Clear the status filter to see every delivery of this webhook.'
                : webhook.status === 'active'
                  ? `Events are sent when an asynchronous ${environment} verification finishes. Send one with "mode": "async" (e.g. an ET, CI or TZ account check, or any phone or identity check) and refresh.`
                  : 'This webhook is not active, so no events are queued for it. Edit it and set it active to receive deliveries.'
            }
          />
        ) : (
          <Stack gap="xs" data-testid="deliveries-list">
            {(rows ?? []).map((d) => {
              const last = d.attemptLog.at(-1);
              const { dropped } = deliveryFate(d);
              return (
                <Card
                  key={d.id}
                  withBorder
                  padding="sm"
                  radius="sm"
                  data-testid={`delivery-row-${d.id}`}
                  data-status={d.status}
                  data-highlighted={d.id === highlightId || undefined}
                  style={{ cursor: 'pointer', ...(d.id === highlightId ? { outline: '2px solid var(--mantine-color-red-5)' } : {}) }}
                  // A click anywhere on the card opens the delivery; from the keyboard, its Open button does. (The card
                  // was itself a role="button" holding the copy button: axe nested-interactive, serious.)
                  onClick={() => onOpen(d.id)}
                >
                  <Group wrap="nowrap" align="center" gap="md">
                    <Stack gap={4} w={260} style={{ flexShrink: 0 }}>
                      {/* "Delivered · verification.failed": the delivery's fate, then the event it carried. */}
                      <Group gap={6} wrap="nowrap" data-testid={`delivery-summary-${d.id}`}>
                        {/* The status wins over a drop: a dropped delivery a retry later delivered reads "Delivered". */}
                        {dropped ? (
                          <Badge color="gray" variant="light" data-testid={`delivery-dropped-${d.id}`}>
                            {DROP_LABEL[dropped]}
                          </Badge>
                        ) : (
                          <Badge color={STATUS_COLOR[d.status] ?? 'gray'} variant="light">
                            {DELIVERY_LABEL[d.status]}
                          </Badge>
                        )}
                        <Text span size="sm" c="dimmed" aria-hidden>
                          ·
                        </Text>
                        <Code>{d.eventType}</Code>
                        {ORIGIN_LABEL[d.origin] && (
                          <Badge color="violet" variant="outline" size="sm" data-testid={`delivery-origin-${d.id}`}>
                            {ORIGIN_LABEL[d.origin]}
                          </Badge>
                        )}
                      </Group>
                      <Group gap={4} wrap="nowrap">
                        <IdWithCopy id={d.id} what="delivery id" maxWidth={170} />
                        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                          {formatTime(d.createdAt)}
                        </Text>
                      </Group>
                    </Stack>
                    <Box style={{ flex: 1 }}>
                      <AttemptTrack createdAt={d.createdAt} attempts={d.attemptLog} nextAttemptAt={d.nextAttemptAt} testId={`delivery-track-${d.id}`} />
                    </Box>
                    <Stack gap={2} w={150} style={{ flexShrink: 0 }} align="flex-end">
                      <Text size="sm" fw={500}>
                        {d.response?.statusCode != null ? `HTTP ${d.response.statusCode}` : d.error ? 'No response' : '—'}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                        {last ? ` · ${formatDuration(last.durationMs)}` : ''}
                      </Text>
                      {d.droppedAt && dropped && (
                        <Text size="xs" c="dimmed" data-testid={`delivery-dropped-at-${d.id}`}>
                          dropped {formatTime(d.droppedAt)}
                        </Text>
                      )}
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        aria-label={`Open delivery ${d.id}: ${DELIVERY_LABEL[d.status]}, ${d.eventType}`}
                        data-testid={`delivery-open-${d.id}`}
                        onClick={(e) => {
                          e.stopPropagation();
                          onOpen(d.id);
                        }}
                      >
                        Open
                      </Button>
                    </Stack>
                  </Group>
                </Card>
              );
            })}
          </Stack>
        )}
        {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} size="sm" data-testid="deliveries-pagination" />}
      </Stack>
    </Paper>
  );
}
