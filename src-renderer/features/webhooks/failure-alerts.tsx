// The alert of a failed webhook (docs/webhooks.md "When an endpoint fails"), on the dashboard and the Webhooks page:
// it names the endpoint, the last error and what was dropped, and offers recovery. Read from the store on load, so
// it shows after a reload or a restart until the webhook leaves `failed`.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Environment } from '../../../src-shared/schemas/common';
import type { WebhookAlert } from '../../../src-shared/schemas/webhooks';
import { call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { useConsole } from '../../app/store';
import { useLiveVersion } from '../../app/live-store';
import { useNavigate } from 'react-router';
import { paths } from '../../app/routes';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "2 pending deliveries dropped; 5 events since then not sent" — what the failure cost so far. */
export function droppedSummary(a: Pick<WebhookAlert, 'droppedDeliveries' | 'eventsNotSent'>): string {
  const parts = [
    a.droppedDeliveries === 0 ? 'no other delivery was pending' : `${plural(a.droppedDeliveries, 'pending delivery', 'pending deliveries')} dropped`,
    `${plural(a.eventsNotSent, 'event', 'events')} since then not sent`,
  ];
  return parts.join('; ');
}

export function useWebhookAlerts(environment: Environment, reloadKey = 0): { alerts: WebhookAlert[]; reload: () => Promise<void> } {
  const [alerts, setAlerts] = useState<WebhookAlert[]>([]);
  // A webhook turning `failed` (or re-enabled) anywhere reaches every open page without a reload (docs/console-live.md).
  const live = useLiveVersion('webhooks');
  const reload = useCallback(async () => {
    try {
      setAlerts((await call('webhooks:alerts', { environment })).data);
    } catch {
      // The alert is an addition to the page: a failed read leaves the page as it was.
      setAlerts([]);
    }
  }, [environment]);
  useEffect(() => {
    void reload();
  }, [reload, reloadKey, live]);
  return { alerts, reload };
}

export function WebhookFailureAlerts(props: {
  alerts: WebhookAlert[];
  /** The Webhooks page: recover in place. */
  onRecover?: (a: WebhookAlert) => void;
  /** The dashboard: go to the webhook. */
  onOpen?: (a: WebhookAlert) => void;
}) {
  if (props.alerts.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="webhook-failure-alerts">
      {props.alerts.map((a) => (
        <Alert
          key={a.failureId}
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={`Webhook failed: ${a.description ?? a.url}`}
          data-testid={`webhook-failure-alert-${a.webhookId}`}
        >
          <Stack gap={6}>
            <Text size="sm">
              <Code>{a.url}</Code> stopped receiving events at {formatTime(a.failedAt)} after five failed attempts. Last error:{' '}
              <b data-testid="webhook-failure-error">{a.lastError ?? (a.lastStatusCode !== null ? `HTTP ${a.lastStatusCode}` : 'no answer')}</b>.
            </Text>
            <Text size="sm" data-testid="webhook-failure-dropped">
              Dropped: {droppedSummary(a)}. Nothing is sent to it until it is re-enabled; recovery redelivers what it missed.
            </Text>
            <Group gap="xs">
              {props.onRecover && (
                <Button size="xs" color="red" data-testid={`webhook-failure-recover-${a.webhookId}`} onClick={() => props.onRecover?.(a)}>
                  Re-enable and recover…
                </Button>
              )}
              {props.onOpen && (
                <Button size="xs" variant="light" color="red" data-testid={`webhook-failure-open-${a.webhookId}`} onClick={() => props.onOpen?.(a)}>
                  Open webhook
                </Button>
              )}
            </Group>
          </Stack>
        </Alert>
      ))}
    </Stack>
  );
}

/** The dashboard's copy of the alert: one line to place, it reads the environment and links to the webhook. */
export function DashboardWebhookAlerts({ reloadKey = 0 }: { reloadKey?: number }) {
  const environment = useConsole((s) => s.environment);
  const navigate = useNavigate();
  const { alerts } = useWebhookAlerts(environment, reloadKey);
  return <WebhookFailureAlerts alerts={alerts} onOpen={(a) => navigate(paths.webhook(a.webhookId, 'failed'))} />;
}
