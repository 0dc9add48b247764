// History: every verification of the current environment, searchable (ids, identifier prefixes, names, country
// codes — server side, docs/console-live.md), filterable and paged. A record opens at its own address
// (`#/history/ver_…`), where the route (app/history-route.tsx) shows it in the drawer over this list.
import { useCallback, useEffect, useRef, useState } from 'react';
import { Anchor, Badge, Button, Code, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { PageTitle } from '../../app/page-title';
import { IconRefresh } from '@tabler/icons-react';
import type { ChannelInput } from '../../../src-shared/channels';
import { SUPPORTED_COUNTRIES } from '../../../src-shared/address-rules';
import { VERIFICATION_KINDS, VerificationStatusSchema, VerificationTypeFilterSchema, VerificationTypeSchema, type VerificationRecord } from '../../../src-shared/schemas/verification';
import { call } from '../../client/bridge';
import { formatTime, STATUS_COLOR } from '../../app/format';
import { FilterBar, PagedTable, usePagedList } from '../../app/paged-list';
import { reversedRangeError } from '../../app/date-range';
import { useConsole } from '../../app/store';
import { usePacedLiveVersion } from '../../app/live-store';
import { Link, useLocation, useNavigate } from 'react-router';
import { paths, type HistoryUrlFilter } from '../../app/routes';

const PAGE_SIZE = 20;

interface Filters {
  q: string;
  type: string | null;
  status: string | null;
  country: string | null;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { q: '', type: null, status: null, country: null, from: '', to: '' };

function toQuery(f: Filters, page: number): Omit<ChannelInput<'history:search'>, 'environment'> {
  const status = VerificationStatusSchema.safeParse(f.status);
  // From the address too: a type the service does not know is left out, not sent to be refused.
  const type = VerificationTypeFilterSchema.safeParse(f.type);
  return {
    q: f.q.trim(),
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
    ...(type.success ? { type: type.data } : {}),
    ...(status.success ? { status: status.data } : {}),
    ...(f.country ? { country: f.country } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
  };
}

/** The filters as the address carries them (empty ones left out). */
function urlFilter(f: Filters): HistoryUrlFilter {
  return {
    q: f.q.trim() || undefined,
    type: f.type ?? undefined,
    status: f.status ?? undefined,
    country: f.country ?? undefined,
    from: f.from || undefined,
    to: f.to || undefined,
  };
}

type SelectData = (string | { group: string; items: string[] })[];

const FILTER_SELECTS: { key: 'type' | 'status' | 'country'; label: string; data: SelectData; w: number; searchable?: boolean }[] = [
  // The kinds too: the address may say `type=phone` (the service takes a kind or a verificationType), and the
  // control must show the filter in force, not "Any".
  {
    key: 'type',
    label: 'Type',
    data: [
      { group: 'Kind', items: [...VERIFICATION_KINDS] },
      { group: 'Verification type', items: [...VerificationTypeSchema.options] },
    ],
    w: 200,
  },
  { key: 'status', label: 'Status', data: [...VerificationStatusSchema.options], w: 140 },
  { key: 'country', label: 'Country', data: [...SUPPORTED_COUNTRIES], w: 120, searchable: true },
];

/**
 * The address's filters as the controls can show them: a type or status the service does not know is left out (it
 * was never applied, yet the address kept it), a country is upper-cased as the service reads it.
 */
function filtersOf(f: HistoryUrlFilter): Filters {
  const type = VerificationTypeFilterSchema.safeParse(f.type);
  const status = VerificationStatusSchema.safeParse(f.status);
  const country = f.country && /^[A-Za-z]{2}$/.test(f.country) ? f.country.toUpperCase() : null;
  return { q: f.q ?? '', type: type.success ? type.data : null, status: status.success ? status.data : null, country, from: f.from ?? '', to: f.to ?? '' };
}

/** A select's options, with the value in force added when the list lacks it (a country outside the usual list). */
function withValue(data: SelectData, value: string | null): SelectData {
  const flat = data.flatMap((d) => (typeof d === 'string' ? [d] : d.items));
  return value && !flat.includes(value) ? [...data, value] : data;
}

/** The name a check returned: an account name, a full name, or an identity check's split names. */
export function returnedName(r: VerificationRecord): string | undefined {
  if (r.accountName) return r.accountName;
  if (r.fullName) return r.fullName;
  const parts = [r.firstName, r.middleName, r.lastName].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

export function HistoryPage({ initialFilter = {} }: { initialFilter?: HistoryUrlFilter }) {
  const environment = useConsole((s) => s.environment);
  // An address opens History already filtered (app/history-route.tsx passes its filters); read once, at mount.
  const [initial] = useState<Filters>(() => filtersOf(initialFilter));
  // New checks and completed ones show without a click: a change event makes a new fetchPage, which reloads — paced by
  // what a page costs (its total counts the matching records): live-pacer.ts.
  const { version: live, track } = usePacedLiveVersion('verifications');
  const [capped, setCapped] = useState(false);
  const fetchPage = useCallback(
    async (f: Filters, page: number) => {
      const res = await track(call('history:search', { environment, ...toQuery(f, page) }));
      setCapped(res.pagination.totalCapped);
      return res;
    },
    [environment, live, track],
  );
  // The page is in the address too (a reload on page 3 showed page 1), as the Webhooks list's.
  const list = usePagedList(NO_FILTERS, fetchPage, 'Could not load the history', initial, initialFilter.page ?? 1);
  // The search box answers as one types, a moment after the last key.
  const [text, setText] = useState(initial.q);
  const [debounced] = useDebouncedValue(text, 250);
  const listRef = useRef(list);
  listRef.current = list;
  useEffect(() => {
    if (listRef.current.filters.q !== debounced) listRef.current.setFilter('q', debounced);
  }, [debounced]);
  // Clear empties the box too.
  const searched = list.filters.q;
  useEffect(() => {
    if (searched === '') setText((t) => (t === listRef.current.filters.q || t.trim() === '' ? t : ''));
  }, [searched]);
  // Every filter set has an address (issue 13 §2): the page's filters are mirrored into it, replacing the entry, so a
  // reload, a copied link or a new tab shows the same list.
  const location = useLocation();
  const navigate = useNavigate();
  const { filters, page } = list;
  useEffect(() => {
    const search = paths.history({ ...urlFilter(filters), page }).slice('/history'.length);
    if (search !== location.search) void navigate({ pathname: location.pathname, search }, { replace: true });
  }, [filters, page, location.pathname, location.search, navigate]);

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
        <TextInput
          label="Search"
          placeholder="Id, account / phone / ID number, name, country"
          leftSection={<IconSearch size={16} />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          maxLength={200}
          w={300}
          data-testid="history-search"
        />
        {FILTER_SELECTS.map((f) => (
          <Select
            key={f.key}
            label={f.label}
            placeholder="Any"
            clearable
            searchable={f.searchable ?? false}
            data={withValue(f.data, list.filters[f.key])}
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
          list.filters.q.trim()
            ? `Nothing in ${environment} matches “${list.filters.q.trim()}” — try the start of a number or a name`
            : reversedRangeError(list.filters.from, list.filters.to)
            ? 'To is before From: no day is in this range'
            : list.filtered
            ? `No verifications in ${environment} match these filters — widen or clear them`
            : `No verifications in ${environment} yet — run one from Verify, the palette (Ctrl+K) or the API`
        }
        // A record opens at its own address, keeping the list's filters: a push, so Back closes the drawer, and a
        // reload or a copied link shows the same record. The time is a real link to that address too, so the rows
        // can be reached and opened from the keyboard (and, in the web console, opened in a new tab).
        onRowClick={(r) => void navigate(paths.verification(r.id, { ...urlFilter(filters), page }))}
        rowAttributes={(r) => ({ 'data-testid': `history-row-${r.id}`, 'data-status': r.status })}
        columns={[
          {
            accessor: 'createdAt',
            title: 'Created',
            render: (r) => (
              <Anchor
                component={Link}
                to={paths.verification(r.id, { ...urlFilter(filters), page })}
                size="sm"
                // The row's own click would navigate a second time (and a Ctrl-click meant for a new tab here).
                onClick={(e) => e.stopPropagation()}
                data-testid={`history-open-${r.id}`}
              >
                {formatTime(r.createdAt)}
              </Anchor>
            ),
          },
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
          {
            accessor: 'identifier',
            title: 'Identifier',
            // One long identifier (an address line of hundreds of characters) pushed Name and Error off screen for
            // every row: cut with an ellipsis, the whole value on hover and in the record.
            render: (r) => (
              <Code title={r.identifier} data-testid="history-identifier" style={{ display: 'block', maxWidth: 280, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {r.identifier}
              </Code>
            ),
          },
          { accessor: 'name', title: 'Name', render: (r) => returnedName(r) ?? '—' },
          { accessor: 'error', title: 'Error', render: (r) => (r.error ? <Code>{r.error.code}</Code> : '') },
        ]}
      />
      {capped && (
        <Text size="xs" c="dimmed" data-testid="history-capped">
          More than 1,000 checks match: the newest are shown. Add to the search to narrow it.
        </Text>
      )}
    </Stack>
  );
}
