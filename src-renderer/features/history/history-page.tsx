// History: every verification of the current environment, filterable and paged, with a detail drawer.
import { useCallback, useEffect, useState } from 'react';
import { Badge, Box, Button, Code, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { ChannelInput } from '../../../src-shared/channels';
import { SUPPORTED_ACCOUNT_COUNTRIES } from '../../../src-shared/corridors';
import { VerificationStatusSchema, VerificationTypeSchema, type VerificationRecord } from '../../../src-shared/schemas/verification';
import { call } from '../../client/bridge';
import { formatTime, STATUS_COLOR } from '../../app/format';
import { notifyError } from '../../app/notify';
import { useConsole } from '../../app/store';
import { VerificationDrawer } from './verification-drawer';

const PAGE_SIZE = 20;

interface Filters {
  type: string | null;
  status: string | null;
  country: string | null;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { type: null, status: null, country: null, from: '', to: '' };

function toQuery(f: Filters, page: number): ChannelInput<'verify:list'>['query'] {
  const status = VerificationStatusSchema.safeParse(f.status);
  return {
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
    ...(f.type ? { type: f.type } : {}),
    ...(status.success ? { status: status.data } : {}),
    ...(f.country ? { country: f.country } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
  };
}

export function HistoryPage() {
  const environment = useConsole((s) => s.environment);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<VerificationRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const closeDrawer = useCallback(() => setOpenId(null), []);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const res = await call('verify:list', { environment, query: toQuery(filters, page) });
      setRows(res.data);
      setTotal(res.pagination.total);
    } catch (e) {
      notifyError(e, 'Could not load the history');
    } finally {
      setLoading(false);
    }
  }, [environment, filters, page]);

  useEffect(() => {
    void load();
  }, [load]);

  function setFilter<K extends keyof Filters>(key: K, value: Filters[K]) {
    setFilters((f) => ({ ...f, [key]: value }));
    setPage(1);
  }

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>History</Title>
        <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading}>
          Refresh
        </Button>
      </Group>
      <Group align="flex-end" gap="sm" data-testid="history-filters">
        <Select
          label="Type"
          placeholder="Any"
          clearable
          data={VerificationTypeSchema.options}
          value={filters.type}
          onChange={(v) => setFilter('type', v)}
          w={200}
          data-testid="history-type"
        />
        <Select
          label="Status"
          placeholder="Any"
          clearable
          data={VerificationStatusSchema.options}
          value={filters.status}
          onChange={(v) => setFilter('status', v)}
          w={140}
          data-testid="history-status"
        />
        <Select
          label="Country"
          placeholder="Any"
          clearable
          searchable
          data={[...SUPPORTED_ACCOUNT_COUNTRIES].sort()}
          value={filters.country}
          onChange={(v) => setFilter('country', v)}
          w={120}
          data-testid="history-country"
        />
        <TextInput label="From" type="date" value={filters.from} onChange={(e) => setFilter('from', e.currentTarget.value)} w={160} data-testid="history-from" />
        <TextInput label="To" type="date" value={filters.to} onChange={(e) => setFilter('to', e.currentTarget.value)} w={160} data-testid="history-to" />
        <Button variant="subtle" onClick={() => (setFilters(NO_FILTERS), setPage(1))}>
          Clear
        </Button>
      </Group>
      <Box data-testid="history-table">
        <DataTable<VerificationRecord>
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
          noRecordsText={`No verifications in ${environment} match these filters`}
          onRowClick={({ record }) => setOpenId(record.id)}
          customRowAttributes={(r) => ({ 'data-testid': `history-row-${r.id}`, 'data-status': r.status })}
          columns={[
            { accessor: 'createdAt', title: 'Created', render: (r) => formatTime(r.createdAt) },
            {
              accessor: 'status',
              title: 'Status',
              render: (r) => (
                <Badge color={STATUS_COLOR[r.status] ?? 'gray'} variant="light">
                  {r.status}
                </Badge>
              ),
            },
            { accessor: 'verificationType', title: 'Type', render: (r) => <Text size="sm">{r.verificationType}</Text> },
            { accessor: 'country', title: 'Country' },
            { accessor: 'identifier', title: 'Identifier', render: (r) => <Code>{r.identifier}</Code> },
            { accessor: 'name', title: 'Name', render: (r) => r.accountName ?? r.fullName ?? '—' },
            { accessor: 'error', title: 'Error', render: (r) => (r.error ? <Code>{r.error.code}</Code> : '') },
          ]}
        />
      </Box>
      <VerificationDrawer id={openId} environment={environment} onClose={closeDrawer} />
    </Stack>
  );
}
