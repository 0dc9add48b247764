// The dashboard's webhook delivery health and wallet tiles, each linking to the page behind it.
import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconArrowRight } from '@tabler/icons-react';
import type { DashboardSummary } from '../../../src-shared/schemas/dashboard';
import { LOW_BALANCE_MAJOR, currencyDigits } from '../../../src-shared/money';
import { formatMoney, formatTime } from '../../app/format';
import { Link } from 'react-router';
import { paths } from '../../app/routes';
import { DROP_LABEL } from '../webhooks/timeline';

export function WebhookHealthCard({ summary }: { summary: DashboardSummary }) {
  // A failure row links to that webhook's failed deliveries with this one in the drawer, not just the page.
  const { deliveries, endpoints, lastFailures } = summary.webhooks;
  const total = deliveries.success + deliveries.failed + deliveries.pending;
  const noEndpoints = endpoints.active + endpoints.inactive + endpoints.failed === 0;
  // Deliveries of a deleted webhook still count for the period (docs/dashboard.md): the hint replaces the tile
  // only when there is no endpoint and nothing was delivered, failed or pending.
  const empty = noEndpoints && total === 0 && lastFailures.length === 0;
  return (
    <Paper withBorder p="md" data-testid="dash-webhooks">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Webhook deliveries</Title>
        <Button variant="subtle" size="xs" rightSection={<IconArrowRight size={14} />} component={Link} to={paths.webhooks()} data-testid="dash-webhooks-open">
          Webhooks
        </Button>
      </Group>
      {empty ? (
        <Text size="sm" c="dimmed" data-testid="dash-webhooks-empty">
          No webhook endpoint in {summary.environment}. Add one on the Webhooks page to be told when an async check completes.
        </Text>
      ) : (
        <Stack gap="sm">
          {noEndpoints && (
            <Text size="xs" c="dimmed" data-testid="dash-webhooks-none-left">
              No webhook endpoint in {summary.environment} now; these are the deliveries of the period to endpoints since deleted.
            </Text>
          )}
          <Group gap="lg">
            <Stat label="delivered" value={deliveries.success} color="green" testId="dash-deliveries-success" />
            <Stat label="failed" value={deliveries.failed} color="red" testId="dash-deliveries-failed" />
            <Stat label="pending" value={deliveries.pending} color="blue" testId="dash-deliveries-pending" />
          </Group>
          {total > 0 && (
            <BarChart
              h={70}
              data={[{ name: 'deliveries', delivered: deliveries.success, failed: deliveries.failed, pending: deliveries.pending }]}
              dataKey="name"
              type="percent"
              orientation="vertical"
              withXAxis={false}
              withYAxis={false}
              gridAxis="none"
              series={[
                { name: 'delivered', color: 'green.6' },
                { name: 'failed', color: 'red.6' },
                { name: 'pending', color: 'blue.5' },
              ]}
            />
          )}
          {endpoints.failed > 0 && (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} p="xs" data-testid="dash-endpoints-failed" data-count={endpoints.failed}>
              {endpoints.failed} endpoint{endpoints.failed === 1 ? ' was' : 's were'} disabled after repeated failures. Fix the receiver, then re-enable it on the
              Webhooks page.
            </Alert>
          )}
          {lastFailures.length > 0 ? (
            <Table fz="xs" withTableBorder data-testid="dash-last-failures">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>Endpoint</Table.Th>
                  <Table.Th>Last answer</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {lastFailures.map((f) => (
                  <Table.Tr key={f.id} data-testid={`dash-failure-${f.id}`}>
                    <Table.Td>{formatTime(f.at)}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      <Anchor component={Link} to={paths.delivery(f.webhookId, f.id, 'failed')} fz="xs" data-testid="dash-failure-open">
                        {f.url}
                      </Anchor>
                    </Table.Td>
                    <Table.Td data-testid="dash-failure-answer">
                      {f.dropReason && (
                        <Badge color="gray" variant="light" size="xs" mr={4} data-testid="dash-failure-dropped">
                          {DROP_LABEL[f.dropReason]}
                        </Badge>
                      )}
                      {f.lastStatusCode ? <Code>HTTP {f.lastStatusCode}</Code> : (f.lastError ?? (f.dropReason ? 'no attempt made' : '—'))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          ) : (
            <Text size="xs" c="dimmed">
              {total === 0 ? 'No deliveries in this period.' : 'No failed deliveries in this period.'}
            </Text>
          )}
        </Stack>
      )}
    </Paper>
  );
}

function Stat({ label, value, color, testId }: { label: string; value: number; color: string; testId: string }) {
  return (
    <Stack gap={0}>
      <Text size="xl" fw={700} c={value > 0 ? `${color}.8` : 'dimmed'} data-testid={testId}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
    </Stack>
  );
}

export function WalletTile({ summary }: { summary: DashboardSummary }) {
  const w = summary.wallet;
  return (
    <Paper withBorder p="md" data-testid="dash-wallet" data-low={w.low}>
      <Group justify="space-between" mb="sm">
        <Title order={4}>Wallet (live)</Title>
        <Button variant="subtle" size="xs" rightSection={<IconArrowRight size={14} />} component={Link} to={paths.section('wallet')} data-testid="dash-wallet-open">
          Wallet
        </Button>
      </Group>
      <Group gap="sm" align="baseline">
        <Text size="xl" fw={700} c={w.low ? 'orange.8' : undefined} data-testid="dash-wallet-balance" data-minor={w.balance}>
          {formatMoney(w.balance, w.currency)}
        </Text>
        <Badge color={w.status === 'active' ? 'green' : 'red'} variant="light">
          {w.status}
        </Badge>
      </Group>
      {w.status === 'suspended' && (
        <Text size="sm" c="red.8" mt="xs">
          The wallet is suspended: live checks are refused (WALLET_SUSPENDED) until an owner activates it.
        </Text>
      )}
      {w.low && (
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={16} />} mt="sm" p="xs" data-testid="dash-wallet-low">
          Below {formatMoney(LOW_BALANCE_MAJOR * 10 ** currencyDigits(w.currency), w.currency)}: top up before live checks are refused for insufficient funds.
        </Alert>
      )}
      <Text size="xs" c="dimmed" mt="xs">
        Only live checks are charged; sandbox is free.
      </Text>
    </Paper>
  );
}
