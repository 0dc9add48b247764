// Usage records (one per live charge or reversal): filters, paging and a CSV export of the rows on screen.
import { useCallback, useEffect, useState } from 'react';
import { Badge, Box, Button, Code, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconDownload, IconRefresh } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { ChannelInput } from '../../../src-shared/channels';
import { call } from '../../client/bridge';
import { formatMoney, formatTime } from '../../app/format';
import { notifyError } from '../../app/notify';
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
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<UsageRow[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const res = await call('usage:list', { query: toQuery(filters, page) });
      setRows(res.data);
      setTotal(res.pagination.total);
      setLoaded(true);
    } catch (e) {
      notifyError(e, 'Could not load usage records');
    } finally {
      setLoading(false);
    }
    // refreshKey: the page bumps it after a change that can add usage (none today, but a refresh is cheap).
  }, [filters, page, refreshKey]);

  useEffect(() => {
    void load();
  }, [load]);

  function setFilter<K extends keyof Filters>(key: K, value: Filters[K]) {
    setFilters((f) => ({ ...f, [key]: value }));
    setPage(1);
  }

  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
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
            <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading}>
              Refresh
            </Button>
            <Button leftSection={<IconDownload size={16} />} variant="light" disabled={rows.length === 0} onClick={exportCsv} data-testid="usage-export">
              Export CSV ({rows.length} {rows.length === 1 ? 'row' : 'rows'} shown)
            </Button>
          </Group>
        </Group>
        <Group align="flex-end" gap="sm" data-testid="usage-filters">
          <Select
            label="Service"
            placeholder="Any"
            clearable
            searchable
            data={serviceSelectData()}
            value={filters.service}
            onChange={(v) => setFilter('service', v)}
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
            value={filters.kind}
            onChange={(v) => setFilter('kind', v)}
            w={130}
            data-testid="usage-kind"
          />
          <TextInput
            label="Verification id"
            placeholder="ver_…"
            value={filters.verificationId}
            onChange={(e) => setFilter('verificationId', e.currentTarget.value)}
            w={220}
            data-testid="usage-verification-id"
          />
          <TextInput label="From" type="date" value={filters.from} onChange={(e) => setFilter('from', e.currentTarget.value)} w={160} data-testid="usage-from" />
          <TextInput label="To" type="date" value={filters.to} onChange={(e) => setFilter('to', e.currentTarget.value)} w={160} data-testid="usage-to" />
          <Button variant="subtle" disabled={!filtered} onClick={() => (setFilters(NO_FILTERS), setPage(1))}>
            Clear
          </Button>
        </Group>
        <Box data-testid="usage-table">
          <DataTable<UsageRow>
            withTableBorder
            borderRadius="sm"
            highlightOnHover
            minHeight={rows.length === 0 ? 180 : undefined}
            fetching={loading}
            records={rows}
            idAccessor="id"
            totalRecords={total}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={setPage}
            noRecordsText={
              !loaded
                ? 'Loading…'
                : filtered
                  ? 'No usage records match these filters — clear them to see all'
                  : 'No usage yet: records appear when a live verification is charged'
            }
            customRowAttributes={(r) => ({ 'data-testid': `usage-row-${r.id}`, 'data-kind': r.kind })}
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
        </Box>
      </Stack>
    </Paper>
  );
}
