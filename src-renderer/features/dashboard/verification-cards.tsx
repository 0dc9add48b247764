// The dashboard's verification charts: the period by status (donut), by country (stacked bars) and the two rates of
// interface §9 rule 5. Every number links to the History list filtered to it.
import { BarChart, DonutChart } from '@mantine/charts';
import { Anchor, Badge, Group, Paper, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import type { DashboardSummary, StatusCounts } from '../../../src-shared/schemas/dashboard';
import { STATUS_COLOR } from '../../app/format';
import { Link } from 'react-router';
import type { HistoryFilter } from '../../app/store';
import { paths } from '../../app/routes';
import { formatRate } from './period';

const STATUSES: (keyof StatusCounts)[] = ['success', 'failed', 'error', 'pending'];
const CHART_COLOR: Record<keyof StatusCounts, string> = { success: 'green.6', failed: 'red.6', error: 'orange.6', pending: 'blue.5' };
const MAX_BARS = 12;

type Open = (filter: HistoryFilter) => void;

export function StatusCard({ summary, from }: { summary: DashboardSummary; from: string }) {
  const { byStatus, total } = summary.verifications;
  const data = STATUSES.filter((s) => byStatus[s] > 0).map((s) => ({ name: s, value: byStatus[s], color: CHART_COLOR[s] }));
  return (
    <Paper withBorder p="md" data-testid="dash-status">
      <Title order={4} mb="sm">
        By status
      </Title>
      <Group align="center" wrap="nowrap" gap="lg">
        <DonutChart data={data} size={150} thickness={24} withTooltip chartLabel={`${total}`} tooltipDataSource="segment" />
        <Stack gap={6} style={{ flex: 1 }}>
          {STATUSES.map((s) => (
            <Group key={s} justify="space-between" wrap="nowrap">
              <Anchor component={Link} to={paths.history({ status: s, from })}  data-testid={`dash-status-${s}`} data-count={byStatus[s]}>
                <Badge color={STATUS_COLOR[s] ?? 'gray'} variant="light">
                  {s}
                </Badge>
              </Anchor>
              <Text fw={600} ff="monospace">
                {byStatus[s]}
              </Text>
            </Group>
          ))}
          <Group justify="space-between">
            <Anchor component={Link} to={paths.history({ from })} size="sm"  data-testid="dash-total">
              All checks
            </Anchor>
            <Text fw={700} ff="monospace">
              {total}
            </Text>
          </Group>
        </Stack>
      </Group>
    </Paper>
  );
}

export function RatesCard({ summary }: { summary: DashboardSummary }) {
  const v = summary.verifications;
  const finished = v.answered + v.byStatus.error;
  return (
    <Paper withBorder p="md" data-testid="dash-rates">
      <Title order={4} mb="sm">
        Rates
      </Title>
      <SimpleGrid cols={2}>
        <Stack gap={2}>
          <Tooltip label="Success ÷ (success + failed). Errors are not answers and never lower this rate." multiline w={260} withArrow>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Success rate (answered)
            </Text>
          </Tooltip>
          <Text size="xl" fw={700} data-testid="dash-success-rate" c="green.8">
            {formatRate(v.successRate)}
          </Text>
          <Text size="xs" c="dimmed">
            {v.byStatus.success} of {v.answered} answered
          </Text>
        </Stack>
        <Stack gap={2}>
          <Tooltip label="Error ÷ (success + failed + error): checks no provider could answer. Reported apart from the success rate." multiline w={260} withArrow>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Error rate (no answer)
            </Text>
          </Tooltip>
          <Text size="xl" fw={700} data-testid="dash-error-rate" c={v.byStatus.error > 0 ? 'orange.8' : undefined}>
            {formatRate(v.errorRate)}
          </Text>
          <Text size="xs" c="dimmed">
            {v.byStatus.error} of {finished} finished
          </Text>
        </Stack>
      </SimpleGrid>
      {v.byStatus.pending > 0 && (
        <Text size="xs" c="dimmed" mt="sm">
          {v.byStatus.pending} pending check{v.byStatus.pending === 1 ? '' : 's'} count in neither rate until answered.
        </Text>
      )}
    </Paper>
  );
}

export function CountryCard({ summary, from, open }: { summary: DashboardSummary; from: string; open: Open }) {
  const rows = summary.verifications.byCountry;
  const bars = rows.slice(0, MAX_BARS);
  return (
    <Paper withBorder p="md" data-testid="dash-country">
      <Title order={4} mb="sm">
        By corridor
      </Title>
      <BarChart
        h={220}
        data={bars}
        dataKey="country"
        type="stacked"
        withLegend
        // Checks are counted, never halved: whole-number ticks only.
        yAxisProps={{ allowDecimals: false }}
        series={STATUSES.map((s) => ({ name: s, color: CHART_COLOR[s] }))}
        barProps={{ cursor: 'pointer', onClick: (d: { payload?: { country?: unknown } }) => typeof d.payload?.country === 'string' && open({ country: d.payload.country, from }) }}
      />
      <Table mt="sm" striped withTableBorder fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Country</Table.Th>
            {STATUSES.map((s) => (
              <Table.Th key={s} ta="right">
                {s}
              </Table.Th>
            ))}
            <Table.Th ta="right">total</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.country} data-testid={`dash-country-${r.country}`}>
              <Table.Td>
                <Anchor component={Link} to={paths.history({ country: r.country, from })} fz="sm" >
                  {r.country}
                </Anchor>
              </Table.Td>
              {STATUSES.map((s) => (
                <Table.Td key={s} ta="right" ff="monospace">
                  {r[s] > 0 ? (
                    <Anchor component={Link} to={paths.history({ country: r.country, status: s, from })} fz="sm" >
                      {r[s]}
                    </Anchor>
                  ) : (
                    <Text span c="dimmed" fz="sm">
                      0
                    </Text>
                  )}
                </Table.Td>
              ))}
              <Table.Td ta="right" ff="monospace" fw={600}>
                {r.total}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
