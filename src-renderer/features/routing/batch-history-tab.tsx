// Past batch-CSV jobs, newest first; opening one shows its counts, reasons and result rows.
import { useCallback, useEffect, useState } from 'react';
import { Badge, Box, Button, EmptyState, Group, Select, Stack, Text, UnstyledButton } from '@mantine/core';
import { IconHistory, IconRefresh } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { BatchJob } from '../../../src-shared/schemas/routing';
import { call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { notifyError } from '../../app/notify';
import { BATCH_STATUS_COLOR } from './batch-format';

const PAGE_SIZE = 20;

/** Only a finished batch has valid/invalid counts: a running one has none yet, a stopped one keeps none. */
const counted = (j: BatchJob) => j.status === 'done';

export function BatchHistoryTab({ onOpen, onNew }: { onOpen: (job: BatchJob) => void; onNew: () => void }) {
  const [page, setPage] = useState(1);
  const [jobs, setJobs] = useState<BatchJob[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      // One row more than a page tells whether a next page exists (batch:list returns no total).
      setJobs(await call('batch:list', { limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE }));
    } catch (e) {
      notifyError(e, 'Could not load the batch history');
    } finally {
      setLoading(false);
    }
  }, [page]);

  useEffect(() => {
    void load();
  }, [load]);

  const hasMore = (jobs?.length ?? 0) > PAGE_SIZE;
  const shown = (jobs ?? []).slice(0, PAGE_SIZE).filter((j) => !status || j.status === status);

  if (jobs !== null && jobs.length === 0 && page === 1) {
    return (
      <EmptyState
        data-testid="batch-history-empty"
        icon={<IconHistory size={28} />}
        title="No batches yet"
        description="Check a whole CSV file of BICs, routing numbers or routes under Batch CSV; every run is listed here with its results."
      >
        <EmptyState.Actions>
          <Button onClick={onNew}>Start a batch</Button>
        </EmptyState.Actions>
      </EmptyState>
    );
  }

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Select
          label="Status"
          placeholder="Any"
          clearable
          w={160}
          data={['running', 'done', 'failed', 'cancelled']}
          value={status}
          onChange={setStatus}
          data-testid="batch-history-status"
        />
        <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading}>
          Refresh
        </Button>
      </Group>
      <Box data-testid="batch-history-table">
        <DataTable<BatchJob>
          withTableBorder
          borderRadius="sm"
          highlightOnHover
          minHeight={shown.length === 0 ? 150 : undefined}
          fetching={loading && jobs === null}
          records={shown}
          idAccessor="id"
          noRecordsText="No batches with this status on this page — clear the filter"
          onRowClick={({ record }) => onOpen(record)}
          customRowAttributes={(j) => ({ 'data-testid': `batch-row-${j.id}`, 'data-status': j.status })}
          columns={[
            { accessor: 'startedAt', title: 'Started', render: (j) => formatTime(j.startedAt) },
            {
              accessor: 'inputName',
              title: 'File',
              // The row opens on a click; this button is its keyboard way in (Tab, Enter or Space) and names what opens.
              render: (j) => (
                <UnstyledButton
                  onClick={(e) => {
                    e.stopPropagation();
                    onOpen(j);
                  }}
                  aria-label={`Open batch ${j.inputName}, started ${formatTime(j.startedAt)}`}
                  data-testid={`batch-open-${j.id}`}
                >
                  <Text size="sm" fw={500} td="underline">
                    {j.inputName}
                  </Text>
                </UnstyledButton>
              ),
            },
            { accessor: 'environment', title: 'Environment' },
            {
              accessor: 'status',
              title: 'Status',
              render: (j) => (
                <Badge color={BATCH_STATUS_COLOR[j.status] ?? 'gray'} variant="light">
                  {j.status}
                </Badge>
              ),
            },
            { accessor: 'rows', title: 'Rows', textAlign: 'right', render: (j) => j.rows.toLocaleString('en-US') },
            // A cancelled or failed batch keeps no valid/invalid counts (batch-job-view.tsx): a dash, not a 0.
            { accessor: 'valid', title: 'Valid', textAlign: 'right', render: (j) => (counted(j) ? j.valid.toLocaleString('en-US') : '—') },
            { accessor: 'invalid', title: 'Invalid', textAlign: 'right', render: (j) => (counted(j) ? j.invalid.toLocaleString('en-US') : '—') },
            { accessor: 'finishedAt', title: 'Finished', render: (j) => formatTime(j.finishedAt, j.status === 'running' ? 'running…' : '—') },
          ]}
        />
      </Box>
      {(page > 1 || hasMore) && (
        <Group justify="flex-end">
          <Button variant="default" size="xs" disabled={page === 1} onClick={() => setPage((p) => p - 1)}>
            Newer
          </Button>
          <Text size="sm">Page {page}</Text>
          <Button variant="default" size="xs" disabled={!hasMore} onClick={() => setPage((p) => p + 1)} data-testid="batch-history-next">
            Older
          </Button>
        </Group>
      )}
    </Stack>
  );
}
