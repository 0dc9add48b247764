// History: every verification of the current environment, filterable and paged, with a detail drawer.
import { useCallback, useState } from 'react';
import { Badge, Button, Code, Select, Stack, Text } from '@mantine/core';
import { PageTitle } from '../../app/page-title';
import { IconRefresh } from '@tabler/icons-react';
import type { ChannelInput } from '../../../src-shared/channels';
import { SUPPORTED_COUNTRIES } from '../../../src-shared/address-rules';
import { VerificationStatusSchema, VerificationTypeSchema, type VerificationRecord } from '../../../src-shared/schemas/verification';
import { call } from '../../client/bridge';
import { formatTime, STATUS_COLOR } from '../../app/format';
import { FilterBar, PagedTable, usePagedList } from '../../app/paged-list';
import { useConsole } from '../../app/store';
import { useLiveVersion } from '../../app/live-store';
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

const FILTER_SELECTS: { key: 'type' | 'status' | 'country'; label: string; data: readonly string[]; w: number; searchable?: boolean }[] = [
  { key: 'type', label: 'Type', data: VerificationTypeSchema.options, w: 200 },
  { key: 'status', label: 'Status', data: VerificationStatusSchema.options, w: 140 },
  { key: 'country', label: 'Country', data: [...SUPPORTED_COUNTRIES], w: 120, searchable: true },
];

export function HistoryPage() {
  const environment = useConsole((s) => s.environment);
  // A dashboard link opens History already filtered (store.openHistory); read once, at mount.
  const [initial] = useState<Filters>(() => ({ ...NO_FILTERS, ...useConsole.getState().historyFilter }));
  const [openId, setOpenId] = useState<string | null>(null);
  const closeDrawer = useCallback(() => setOpenId(null), []);
  // New checks and completed ones show without a click: a change event makes a new fetchPage, which reloads.
  const live = useLiveVersion('verifications');
  const fetchPage = useCallback((f: Filters, page: number) => call('verify:list', { environment, query: toQuery(f, page) }), [environment, live]);
  const list = usePagedList(NO_FILTERS, fetchPage, 'Could not load the history', initial);

  return (
    <Stack>
      <PageTitle
        title="History"
        actions={
          <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void list.reload()} loading={list.loading}>
            Refresh
          </Button>
        }
      />
      <FilterBar testId="history" list={list}>
        {FILTER_SELECTS.map((f) => (
          <Select
            key={f.key}
            label={f.label}
            placeholder="Any"
            clearable
            searchable={f.searchable ?? false}
            data={f.data}
            value={list.filters[f.key]}
            onChange={(v) => list.setFilter(f.key, v)}
            w={f.w}
            data-testid={`history-${f.key}`}
          />
        ))}
      </FilterBar>
      <PagedTable<VerificationRecord>
        testId="history-table"
        loading={list.loading}
        records={list.rows}
        idAccessor="id"
        total={list.total}
        pageSize={PAGE_SIZE}
        page={list.page}
        onPageChange={list.setPage}
        noRecordsText={
          list.filtered
            ? `No verifications in ${environment} match these filters — widen or clear them`
            : `No verifications in ${environment} yet — run one from Verify, the palette (Ctrl+K) or the API`
        }
        onRowClick={(r) => setOpenId(r.id)}
        rowAttributes={(r) => ({ 'data-testid': `history-row-${r.id}`, 'data-status': r.status })}
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
      <VerificationDrawer id={openId} environment={environment} onClose={closeDrawer} />
    </Stack>
  );
}
