// A finished (or stopped) batch job: counts, the reasons of invalid rows as bars, the result files' paths and
// the result rows (invalid only / search, paged).
import { useCallback, useEffect, useState } from 'react';
import { ActionIcon, Alert, Badge, Box, Button, Code, CopyButton, Group, Paper, Progress, SimpleGrid, Stack, Switch, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconDownload, IconSearch } from '@tabler/icons-react';
import type { BatchJob, BatchResultRows } from '../../../src-shared/schemas/routing';
import { call, isElectron } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { PagedTable } from '../../app/paged-list';
import { notifyError } from '../../app/notify';
import { BATCH_STATUS_COLOR, reasonBars } from './batch-format';

const PAGE_SIZE = 25;

function Stat({ label, value, color, testId }: { label: string; value: number; color?: string; testId?: string }) {
  return (
    <Paper withBorder p="sm" radius="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} c={color} data-testid={testId ?? `batch-count-${label.toLowerCase()}`}>
        {value.toLocaleString('en-US')}
      </Text>
    </Paper>
  );
}

function PathWithCopy({ label, path, testId }: { label: string; path: string; testId: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="sm" w={150} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <Code data-testid={testId} style={{ wordBreak: 'break-all' }}>
        {path}
      </Code>
      <CopyButton value={path}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy path'} withArrow>
            <ActionIcon variant="subtle" color={copied ? 'green' : 'gray'} onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

interface Row {
  n: number;
  cells: string[];
}

function ResultRows({ job }: { job: BatchJob }) {
  const [invalidOnly, setInvalidOnly] = useState(false);
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<BatchResultRows | null>(null);
  const [loading, setLoading] = useState(false);

  // Typing should not fire a request per key: apply the search after a short pause.
  useEffect(() => {
    const t = setTimeout(() => {
      setApplied(search.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(t);
  }, [search]);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      setData(await call('batch:results', { id: job.id, invalidOnly, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE, ...(applied ? { search: applied } : {}) }));
    } catch (e) {
      notifyError(e, 'Could not read the results');
    } finally {
      setLoading(false);
    }
  }, [job.id, invalidOnly, page, applied]);

  useEffect(() => {
    void load();
  }, [load]);

  const headers = data?.headers ?? [];
  const validCol = headers.indexOf('valid');
  const records: Row[] = (data?.rows ?? []).map((cells, i) => ({ n: (data?.offset ?? 0) + i + 1, cells }));

  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <TextInput
          data-testid="batch-results-search"
          label="Search"
          placeholder="BIC, bank, reason…"
          leftSection={<IconSearch size={14} />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={280}
        />
        <Switch
          data-testid="batch-results-invalid-only"
          label="Invalid rows only"
          checked={invalidOnly}
          onChange={(e) => {
            setInvalidOnly(e.currentTarget.checked);
            setPage(1);
          }}
          mb={8}
        />
        <Text size="sm" c="dimmed" mb={8}>
          {data ? `${data.total.toLocaleString('en-US')} row${data.total === 1 ? '' : 's'}` : ''}
        </Text>
      </Group>
      <PagedTable<Row>
        testId="batch-results-table"
        striped
        emptyHeight={150}
        loading={loading}
        records={records}
        idAccessor="n"
        total={data?.total ?? 0}
        pageSize={PAGE_SIZE}
        page={page}
        onPageChange={setPage}
        noRecordsText={applied || invalidOnly ? 'No rows match — clear the search or the invalid-only switch' : 'The result file has no rows'}
        rowAttributes={(r) => ({ 'data-valid': validCol >= 0 ? r.cells[validCol] : undefined })}
        columns={[
          { accessor: 'n', title: '#', width: 60 },
          ...headers.map((h, j) => ({
            accessor: `c${j}`,
            title: h,
            render: (r: Row) => {
              const v = r.cells[j] ?? '';
              if (j === validCol)
                return (
                  <Text size="sm" fw={600} c={v === 'true' ? 'green.7' : 'red.7'}>
                    {v}
                  </Text>
                );
              return <Text size="sm">{v}</Text>;
            },
          })),
        ]}
      />
    </Stack>
  );
}

export function BatchJobView({ job }: { job: BatchJob }) {
  const bars = reasonBars(job.reasons);
  const finished = job.status === 'done';
  const stopped = job.status === 'cancelled' || job.status === 'failed';
  return (
    <Stack data-testid="batch-job-view" data-status={job.status}>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={4}>{job.inputName}</Title>
          <Badge color={BATCH_STATUS_COLOR[job.status] ?? 'gray'} data-testid="batch-job-status">
            {job.status}
          </Badge>
          <Badge variant="outline">{job.environment}</Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {job.id} · started {formatTime(job.startedAt)}
          {job.finishedAt ? ` · finished ${formatTime(job.finishedAt)}` : ''}
        </Text>
      </Group>
      {job.error && (
        <Alert color="red" title="The batch stopped" data-testid="batch-job-error">
          {job.error}
        </Alert>
      )}
      {job.status === 'cancelled' && (
        <Alert color="gray" title="Cancelled" data-testid="batch-cancelled-note">
          The batch was cancelled after reading {job.rows.toLocaleString('en-US')} rows. Its partial results were discarded, so how many of those
          were valid is not known: run the file again to check every row.
        </Alert>
      )}
      {/* A stopped batch keeps only how far it read (the service records no valid/invalid counts and deletes its partial
          result files): "Valid 0 · Invalid 0" read as a verdict on rows never counted. */}
      {stopped ? (
        <SimpleGrid cols={3}>
          <Stat label="Rows read" value={job.rows} testId="batch-count-rows-read" />
        </SimpleGrid>
      ) : (
        <SimpleGrid cols={3}>
          <Stat label="Rows" value={job.rows} />
          <Stat label="Valid" value={job.valid} color="green" />
          <Stat label="Invalid" value={job.invalid} color="red" />
        </SimpleGrid>
      )}
      {bars.length > 0 && (
        <Paper withBorder p="md" radius="sm" data-testid="batch-reasons">
          <Title order={5} mb="xs">
            Why rows are invalid
          </Title>
          <Stack gap={8}>
            {bars.map((b) => (
              <Box key={b.reason}>
                <Group justify="space-between" gap="xs" wrap="nowrap">
                  <Text size="sm">{b.reason}</Text>
                  <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                    {b.count.toLocaleString('en-US')} ({b.percent.toFixed(b.percent < 10 ? 1 : 0)}%)
                  </Text>
                </Group>
                <Progress value={b.percent} color="red" size="md" aria-label={b.reason} />
              </Box>
            ))}
          </Stack>
        </Paper>
      )}
      {(job.resultPath || job.invalidOnlyPath) && (
        <Paper withBorder p="md" radius="sm" data-testid="batch-files">
          <Title order={5} mb={4}>
            Result files
          </Title>
          <Text size="xs" c="dimmed" mb="xs">
            {isElectron()
              ? 'Written on this machine, in the service’s data folder; copy a path to open it in a spreadsheet.'
              : 'Written in the data folder of the machine that runs the service (a dropped or chosen CSV is uploaded there first); download them below.'}
          </Text>
          <Stack gap={4}>
            {job.resultPath && <PathWithCopy label="All rows" path={job.resultPath} testId="batch-result-path" />}
            {job.invalidOnlyPath && <PathWithCopy label="Invalid rows only" path={job.invalidOnlyPath} testId="batch-invalid-path" />}
          </Stack>
          {finished && !isElectron() && (
            <Group mt="sm">
              <Button component="a" href={`batch/${encodeURIComponent(job.id)}/download`} download variant="light" leftSection={<IconDownload size={16} />} data-testid="batch-download-all">
                Download all rows
              </Button>
              <Button component="a" href={`batch/${encodeURIComponent(job.id)}/download?rows=invalid`} download variant="light" color="red" leftSection={<IconDownload size={16} />} data-testid="batch-download-invalid">
                Download invalid rows
              </Button>
            </Group>
          )}
        </Paper>
      )}
      {finished ? (
        <ResultRows job={job} />
      ) : (
        <Text size="sm" c="dimmed">
          Result rows can be browsed once a batch is done.
        </Text>
      )}
    </Stack>
  );
}
