// A filtered, paged list read from the service (history, usage): the state and loading behind it, the filter bar
// with its date range and Clear button, and the table with its pager.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Box, Button, Group, TextInput } from '@mantine/core';
import { DataTable, type DataTableColumn } from 'mantine-datatable';
import { notifyError } from './notify';
import { reversedRangeError } from './date-range';

export interface Page<R> {
  data: R[];
  pagination: { total: number };
}

/**
 * `fetchPage` must be stable (wrap it in useCallback): a new function reloads the list, which is how a change of
 * environment or an explicit refresh key is picked up. Changing a filter goes back to page 1.
 */
export function usePagedList<F extends object, R>(
  noFilters: F,
  fetchPage: (filters: F, page: number) => Promise<Page<R>>,
  errorTitle: string,
  /** Filters to open with (a link from the dashboard); Clear still goes back to `noFilters`. */
  initialFilters?: F,
  /** The page to open on (an address's `page=`). */
  initialPage = 1,
) {
  const [filters, setFilters] = useState<F>(initialFilters ?? noFilters);
  const [page, setPage] = useState(initialPage);
  const [rows, setRows] = useState<R[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const res = await fetchPage(filters, page);
      setRows(res.data);
      setTotal(res.pagination.total);
      setLoaded(true);
    } catch (e) {
      notifyError(e, errorTitle);
    } finally {
      setLoading(false);
    }
  }, [fetchPage, filters, page, errorTitle]);

  useEffect(() => {
    void reload();
  }, [reload]);

  function setFilter<K extends keyof F>(key: K, value: F[K]) {
    setFilters((f) => ({ ...f, [key]: value }));
    setPage(1);
  }

  function clearFilters() {
    setFilters(noFilters);
    setPage(1);
  }

  const filtered = JSON.stringify(filters) !== JSON.stringify(noFilters);
  return { filters, setFilter, clearFilters, filtered, page, setPage, rows, total, loading, loaded, reload };
}

type DateRange = { from: string; to: string };

/** The filter row: the page's own filters, then From / To dates and Clear. Test ids are `<testId>-filters`, `-from`, `-to`. */
export function FilterBar<F extends DateRange>({
  testId,
  list,
  children,
}: {
  testId: string;
  list: { filters: F; setFilter: <K extends keyof F>(key: K, value: F[K]) => void; clearFilters: () => void; filtered: boolean };
  children: ReactNode;
}) {
  return (
    <Group align="flex-end" gap="sm" data-testid={`${testId}-filters`}>
      {children}
      <TextInput label="From" type="date" value={list.filters.from} onChange={(e) => list.setFilter('from', e.currentTarget.value as F['from'])} w={160} data-testid={`${testId}-from`} />
      <TextInput
        label="To"
        type="date"
        value={list.filters.to}
        onChange={(e) => list.setFilter('to', e.currentTarget.value as F['to'])}
        error={reversedRangeError(list.filters.from, list.filters.to)}
        w={160}
        data-testid={`${testId}-to`}
      />
      <Button variant="subtle" disabled={!list.filtered} onClick={list.clearFilters}>
        Clear
      </Button>
    </Group>
  );
}

/** A bordered table paged by the service, inside a box carrying its test id. */
export function PagedTable<T>({
  testId,
  records,
  idAccessor,
  columns,
  total,
  pageSize,
  page,
  onPageChange,
  loading,
  noRecordsText,
  emptyHeight = 180,
  striped,
  onRowClick,
  rowAttributes,
}: {
  testId: string;
  records: T[];
  idAccessor: keyof T & string;
  columns: DataTableColumn<T>[];
  total: number;
  pageSize: number;
  page: number;
  onPageChange: (page: number) => void;
  loading: boolean;
  noRecordsText: string;
  emptyHeight?: number;
  /** Striped rows for read-only data; otherwise rows highlight on hover. */
  striped?: boolean;
  onRowClick?: (record: T) => void;
  rowAttributes?: (record: T) => Record<string, unknown>;
}) {
  return (
    <Box data-testid={testId}>
      <DataTable<T>
        withTableBorder
        borderRadius="sm"
        striped={striped}
        highlightOnHover={!striped}
        minHeight={records.length === 0 ? emptyHeight : undefined}
        fetching={loading}
        records={records}
        idAccessor={idAccessor}
        totalRecords={total}
        recordsPerPage={pageSize}
        page={page}
        onPageChange={onPageChange}
        noRecordsText={noRecordsText}
        onRowClick={onRowClick ? ({ record }) => onRowClick(record) : undefined}
        customRowAttributes={rowAttributes}
        columns={columns}
      />
    </Box>
  );
}
