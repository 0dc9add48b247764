// Usage records (one per live charge or reversal): filters, paging and a CSV export of the rows on screen.
import { useCallback } from 'react';
import { Badge, Button, Code, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconDownload, IconRefresh } from '@tabler/icons-react';
import type { ChannelInput } from '../../../src-shared/channels';
import { call } from '../../client/bridge';
import { formatMoney, formatTime } from '../../app/format';
import { FilterBar, PagedTable, usePagedList } from '../../app/paged-list';
import { reversedRangeError } from '../../app/date-range';
import { serviceSelectData } from './service-catalogue';
import { downloadText } from './download';
import { usageCsv, type UsageRow } from './usage-csv';

const PAGE_SIZE = 20;

interface Filters {
  service: string | null;
  kind: string | null;
  verificationId: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { service: null, kind: null, verificationId: '', from: '', to: '' };

function toQuery(f: Filters, page: number): ChannelInput<'usage:list'>['query'] {
  return {
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
    ...(f.service ? { service: f.service } : {}),
    ...(f.kind === 'charge' || f.kind === 'reversal' ? { kind: f.kind } : {}),
    ...(f.verificationId.trim() ? { verificationId: f.verificationId.trim() } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
  };
}

export function UsagePanel({ refreshKey }: { refreshKey: number }) {
  // refreshKey: the page bumps it after a change that can add usage (none today, but a refresh is cheap).
  const fetchPage = useCallback((f: Filters, page: number) => call('usage:list', { query: toQuery(f, page) }), [refreshKey]);
  const list = usePagedList(NO_FILTERS, fetchPage, 'Could not load usage records');
  const { rows, page } = list;

  function exportCsv() {
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    downloadText(`usage-${stamp}-page${page}.csv`, usageCsv(rows));
  }

  return (
    <Paper withBorder p="md" data-testid="usage-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <div>
            <Title order={4}>Usage</Title>
            <Text size="sm" c="dimmed">
              One record per live charge, and one per reversal of a charge that got no answer. Sandbox checks are never charged.
            </Text>
          </div>
          <Group gap="xs">
            <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={() => void list.reload()} loading={list.loading}>
              Refresh
            </Button>
            <Button leftSection={<IconDownload size={16} />} variant="light" disabled={rows.length === 0} onClick={exportCsv} data-testid="usage-export">
              Export CSV ({rows.length} {rows.length === 1 ? 'row' : 'rows'} shown)
            </Button>
          </Group>
        </Group>
        <FilterBar testId="usage" list={list}>
          <Select
            label="Service"
            placeholder="Any"
            clearable
            searchable
            data={serviceSelectData()}
            value={list.filters.service}
            onChange={(v) => list.setFilter('service', v)}
            w={240}
            data-testid="usage-service"
          />
          <Select
            label="Kind"
            placeholder="Any"
            clearable
            data={[
              { value: 'charge', label: 'Charge' },
              { value: 'reversal', label: 'Reversal' },
            ]}
            value={list.filters.kind}
            onChange={(v) => list.setFilter('kind', v)}
            w={130}
            data-testid="usage-kind"
          />
          <TextInput
            label="Verification id"
            placeholder="ver_…"
            value={list.filters.verificationId}
            onChange={(e) => list.setFilter('verificationId', e.currentTarget.value)}
            w={220}
            data-testid="usage-verification-id"
          />
        </FilterBar>
        <PagedTable<UsageRow>
          testId="usage-table"
          loading={list.loading}
          records={rows}
          idAccessor="id"
          total={list.total}
          pageSize={PAGE_SIZE}
          page={page}
          onPageChange={list.setPage}
          noRecordsText={
            !list.loaded
              ? 'Loading…'
              : reversedRangeError(list.filters.from, list.filters.to)
                ? 'To is before From: no day is in this range'
                : list.filtered
                ? 'No usage records match these filters — clear them to see all'
                : 'No usage yet: records appear when a live verification is charged'
          }
          rowAttributes={(r) => ({ 'data-testid': `usage-row-${r.id}`, 'data-kind': r.kind })}
          columns={[
            { accessor: 'createdAt', title: 'When', render: (r) => formatTime(r.createdAt) },
            {
              accessor: 'kind',
              title: 'Kind',
              render: (r) => (
                <Badge color={r.kind === 'charge' ? 'orange' : 'teal'} variant="light">
                  {r.kind}
                </Badge>
              ),
            },
            { accessor: 'service', title: 'Service', render: (r) => <Code>{r.service}</Code> },
            { accessor: 'verificationId', title: 'Verification', render: (r) => <Code>{r.verificationId}</Code> },
            {
              accessor: 'amount',
              title: 'Amount',
              textAlign: 'right',
              render: (r) => (
                <Text size="sm" c={r.amount < 0 ? 'red.8' : 'teal.8'} ff="monospace">
                  {r.amount > 0 ? '+' : ''}
                  {formatMoney(r.amount, r.currency)}
                </Text>
              ),
            },
          ]}
        />
      </Stack>
    </Paper>
  );
}
