// Batch CSV: a dropped or picked file (or a path on this machine) → preview (headers, first rows, detected column mapping, editable) →
// start → live progress (polled every 500 ms, cancellable) → counts, reasons and the result rows. In live the
// preview says what the run costs before it starts.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Code, Group, Paper, Progress, ScrollArea, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconFileSpreadsheet, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import type { z } from 'zod';
import type { BatchJob, BatchPreviewSchema } from '../../../src-shared/schemas/routing';
import { call, ConsoleError } from '../../client/bridge';
import { errorText, notifyError } from '../../app/notify';
import { useConsole } from '../../app/store';
import { batchIsBilled } from '../../../src-shared/cost-preview';
import { BatchCostPreview } from '../wallet/live-cost';
import { BatchJobView } from './batch-job-view';
import { CsvDropZone } from './csv-drop-zone';
import { columnOptions, formatEta, formatRate, fromSelectValue, MAPPING_FIELDS, MAPPING_LABELS, mappingProblem, toSelectValue, type Mapping } from './batch-format';

type Preview = z.infer<typeof BatchPreviewSchema>;
const POLL_MS = 500;

function PreviewTable({ preview, mapping }: { preview: Preview; mapping: Mapping }) {
  const width = Math.max(preview.headers.length, ...preview.rows.map((r) => r.length));
  const cols = Array.from({ length: width }, (_, i) => (preview.hasHeader ? (preview.headers[i] ?? '') : `Column ${i + 1}`));
  return (
    <ScrollArea>
      <Table striped withTableBorder withColumnBorders data-testid="batch-preview-table">
        <Table.Thead>
          <Table.Tr>
            {cols.map((h, i) => (
              <Table.Th key={i}>
                <Group gap={6} wrap="nowrap">
                  {h || `(column ${i + 1})`}
                  {MAPPING_FIELDS.filter((f) => mapping[f] === i).map((f) => (
                    <Badge key={f} size="xs" variant="light" data-testid={`batch-preview-mapped-${f}`}>
                      {MAPPING_LABELS[f].label}
                    </Badge>
                  ))}
                </Group>
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {preview.rows.map((r, i) => (
            <Table.Tr key={i}>
              {cols.map((_, j) => (
                <Table.Td key={j}>{r[j] ?? ''}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

function RunningJob({ job, onCancel, cancelling }: { job: BatchJob; onCancel: () => void; cancelling: boolean }) {
  const p = job.progress;
  const percent = Math.max(0, Math.min(100, p?.percent ?? 0));
  return (
    <Paper withBorder p="md" radius="sm" data-testid="batch-running">
      <Stack gap="xs">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={5}>Checking {job.inputName}</Title>
            <Badge color="blue">running</Badge>
          </Group>
          <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} loading={cancelling} onClick={onCancel} data-testid="batch-cancel">
            Cancel
          </Button>
        </Group>
        <Progress value={percent} size="xl" striped animated data-testid="batch-progress" aria-label="Batch progress" />
        <SimpleGrid cols={4}>
          <Text size="sm" data-testid="batch-progress-rows">
            <b>{(p?.rows ?? job.rows).toLocaleString('en-US')}</b> rows
          </Text>
          <Text size="sm" data-testid="batch-progress-percent">
            <b>{percent.toFixed(1)}%</b>
          </Text>
          <Text size="sm" data-testid="batch-progress-rate">
            {formatRate(p?.rowsPerSecond ?? 0)}
          </Text>
          <Text size="sm" data-testid="batch-progress-eta">
            ETA {formatEta(p?.etaSeconds ?? null)}
          </Text>
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}

/** `job` lives in the page so a running batch survives switching tabs. */
export function BatchTab({ job, onJob }: { job: BatchJob | null; onJob: (job: BatchJob | null) => void }) {
  const environment = useConsole((s) => s.environment);
  const [path, setPath] = useState('');
  const [pathError, setPathError] = useState<string | undefined>();
  /** Why a chosen or dropped file cannot be read: said at the drop zone, with the file's name (not under "path"). */
  const [fileError, setFileError] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  // The file the preview (and its mapping) is of: Start runs this one, never whatever the path box holds now.
  const [previewedPath, setPreviewedPath] = useState<string | null>(null);
  const [previewing, setPreviewing] = useState(false);
  // The path box as it is now and the latest preview asked for, read when a preview's answer arrives.
  const pathNow = useRef('');
  const previewTicket = useRef(0);
  const [mapping, setMapping] = useState<Mapping | null>(null);
  const [starting, setStarting] = useState(false);
  const setJob = onJob;
  const [cancelling, setCancelling] = useState(false);
  const jobId = job?.status === 'running' ? job.id : null;
  const failures = useRef(0);

  // Poll while the job runs; a few failed polls in a row are reported once instead of every 500 ms.
  useEffect(() => {
    if (!jobId) return;
    let live = true;
    failures.current = 0;
    const timer = setInterval(() => {
      call('batch:progress', { id: jobId })
        .then((j) => {
          failures.current = 0;
          if (live) setJob(j);
        })
        .catch((e: unknown) => {
          failures.current += 1;
          if (failures.current === 3) notifyError(e, 'Lost track of the batch progress');
        });
    }, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [jobId, setJob]);

  async function loadPreview(e: FormEvent) {
    e.preventDefault();
    await previewPath(path);
  }

  /** `fileName`: the file was chosen or dropped (its path is the upload's), so a refusal names the file. */
  async function previewPath(given: string, fileName?: string) {
    setPathError(undefined);
    setFileError(null);
    if (!given.trim()) return setPathError('Enter the full path of a CSV file on this machine, e.g. /home/me/bics.csv.');
    setPath(given);
    pathNow.current = given;
    // Only the latest preview asked for, of the path the box still holds, is shown: an answer that arrives after the
    // path was edited (or after another file was dropped) is of a file the user has left.
    const ticket = ++previewTicket.current;
    const stillWanted = () => ticket === previewTicket.current && pathNow.current.trim() === given.trim();
    setPreviewing(true);
    try {
      const p = await call('batch:preview', { path: given.trim() });
      if (!stillWanted()) return;
      setPreview(p);
      setPreviewedPath(given.trim());
      setMapping({ ...p.mapping });
      setJob(null);
    } catch (err) {
      if (!stillWanted()) return;
      // Said once, where it belongs: the file's own words at the drop zone, or under the path typed. (A toast said it
      // a second time, as "path: …" though a file was chosen.)
      const why = (err instanceof ConsoleError ? err.details.find((d) => d.field === 'path')?.message : undefined) ?? errorText(err);
      if (fileName) setFileError(`${fileName}: ${why}`);
      else setPathError(why);
      setPreview(null);
      setPreviewedPath(null);
    } finally {
      if (ticket === previewTicket.current) setPreviewing(false);
    }
  }

  /** A path edited away from the previewed file takes the preview with it: its rows and mapping are of another file. */
  function editPath(next: string) {
    setPath(next);
    pathNow.current = next;
    if (previewedPath !== null && next.trim() !== previewedPath) {
      setPreview(null);
      setMapping(null);
      setPreviewedPath(null);
    }
  }

  async function start() {
    if (!mapping || !previewedPath) return;
    setStarting(true);
    try {
      setJob(await call('batch:start', { path: previewedPath, environment, mapping }));
    } catch (err) {
      notifyError(err, 'Could not start the batch');
    } finally {
      setStarting(false);
    }
  }

  async function cancel() {
    if (!job) return;
    setCancelling(true);
    try {
      setJob(await call('batch:cancel', { id: job.id }));
    } catch (err) {
      notifyError(err, 'Could not cancel the batch');
    } finally {
      setCancelling(false);
    }
  }

  const columnCount = preview ? Math.max(preview.headers.length, ...preview.rows.map((r) => r.length)) : 0;
  const headerNames = preview ? Array.from({ length: columnCount }, (_, i) => (preview.hasHeader ? (preview.headers[i] ?? '') : `Column ${i + 1}`)) : [];
  const problem = mapping ? mappingProblem(mapping) : null;

  return (
    <Stack>
      <CsvDropZone onPath={(p, name) => void previewPath(p, name)} error={fileError} onError={setFileError} disabled={previewing || job?.status === 'running'} />
      <Paper withBorder p="md" radius="sm">
        <form onSubmit={(e) => void loadPreview(e)} noValidate data-testid="batch-path-form">
          <Group align="flex-start">
            <TextInput
              data-testid="batch-path-input"
              label="…or the path of a CSV file on this machine"
              description="A path on the machine that runs the service, read in place: nothing is copied. (In the web console a dropped or chosen file is uploaded to the service first.)"
              placeholder="/home/me/payees/bics.csv"
              leftSection={<IconFileSpreadsheet size={16} />}
              value={path}
              onChange={(e) => editPath(e.currentTarget.value)}
              error={pathError}
              style={{ flex: 1 }}
            />
            <Button type="submit" mt={46} loading={previewing} data-testid="batch-preview-button">
              Preview
            </Button>
          </Group>
        </form>
      </Paper>

      {preview && mapping && !job && (
        <Paper withBorder p="md" radius="sm" data-testid="batch-preview">
          <Stack>
            <Group justify="space-between">
              <Title order={5}>Preview</Title>
              <Text size="xs" c="dimmed">
                {preview.hasHeader ? 'First line read as headers' : 'No header line detected'} · first {preview.rows.length} rows
              </Text>
            </Group>
            {/* How the file is read and why its columns need mapping: the same words as `vconsole batch validate` (csv-input.ts). */}
            {preview.notes && preview.notes.length > 0 && (
              <Alert color="gray" variant="light" title="Read as detected" data-testid="batch-preview-notes">
                <Stack gap={2}>
                  {preview.notes.map((n) => (
                    <Text key={n} size="sm">
                      {n}
                    </Text>
                  ))}
                </Stack>
              </Alert>
            )}
            {preview.problem && (
              <Alert color="yellow" variant="light" title="Choose the identifier column" data-testid="batch-preview-problem">
                {preview.problem}
              </Alert>
            )}
            <PreviewTable preview={preview} mapping={mapping} />
            <Title order={6}>Column mapping</Title>
            <Text size="xs" c="dimmed">
              Detected from the headers; change a field if the guess is wrong.
            </Text>
            <SimpleGrid cols={{ base: 2, md: 3 }}>
              {MAPPING_FIELDS.map((f) => (
                <Select
                  key={f}
                  data-testid={`batch-map-${f}`}
                  label={MAPPING_LABELS[f].label}
                  description={MAPPING_LABELS[f].help}
                  allowDeselect={false}
                  data={columnOptions(headerNames)}
                  value={toSelectValue(mapping[f])}
                  onChange={(v) => setMapping({ ...mapping, [f]: fromSelectValue(v, columnCount) })}
                  comboboxProps={{ withinPortal: true }}
                />
              ))}
            </SimpleGrid>
            {problem && (
              <Alert color="orange" data-testid="batch-mapping-problem">
                {problem}
              </Alert>
            )}
            {/* The preview holds the first rows only, so per-service counts would come from the service once a row type is billed. */}
            {environment === 'live' && <BatchCostPreview billed={batchIsBilled()} counts={{}} />}
            <Group justify="space-between">
              <Text size="sm" c="dimmed">
                Runs in <b>{environment}</b>
                {environment === 'live' ? ' against the directory you imported under Directory.' : ' against the sandbox test identifiers.'}
              </Text>
              <Button leftSection={<IconPlayerPlay size={16} />} loading={starting} disabled={problem !== null} onClick={() => void start()} data-testid="batch-start">
                Start batch
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}

      {job?.status === 'running' && <RunningJob job={job} cancelling={cancelling} onCancel={() => void cancel()} />}
      {job && job.status !== 'running' && (
        <>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setJob(null)} data-testid="batch-new">
              {preview ? 'Back to the preview' : 'Check another file'}
            </Button>
          </Group>
          <BatchJobView job={job} />
        </>
      )}
      {!preview && !job && (
        <Text size="sm" c="dimmed" data-testid="batch-empty">
          Drop or choose a CSV (or give its path) with a BIC, routing-number or route (from BIC, to BIC, currency) column per row. Try{' '}
          <Code>resources/routing/sample-bic-directory.csv</Code> from the app folder. Past batches are under History.
        </Text>
      )}
    </Stack>
  );
}
