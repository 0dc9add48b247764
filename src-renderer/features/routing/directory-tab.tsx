// Live routing directories: what was imported (kind, rows, refused rows, which one is current) and an import by
// file path; live checks answer from the current import of each kind.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Badge, Box, Button, Code, EmptyState, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconDatabaseImport, IconFileImport } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import { DirectoryKindSchema, type DirectoryImport, type DirectoryImportResult } from '../../../src-shared/schemas/routing';
import { call, ConsoleError } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { errorText, notifyError, notifySuccess } from '../../app/notify';
import { useCan } from '../../app/app-info';

const KIND_LABEL: Record<string, string> = { bic: 'BIC directory', aba: 'ABA routing numbers', correspondents: 'Correspondent relationships' };

export function DirectoryTab() {
  const can = useCan();
  const [imports, setImports] = useState<DirectoryImport[] | null>(null);
  const [kindFilter, setKindFilter] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const [kind, setKind] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [pathError, setPathError] = useState<string | undefined>();
  /** Why the last import failed, in full and in the form: a sticky toast covered the Import button and cut the message. */
  const [importError, setImportError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [last, setLast] = useState<DirectoryImportResult | null>(null);

  const load = useCallback(async () => {
    try {
      setImports(await call('routing:directories', {}));
    } catch (e) {
      notifyError(e, 'Could not list the directories');
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPathError(undefined);
    setImportError(null);
    if (!path.trim()) return setPathError('Enter the full path of the directory CSV on this machine.');
    setBusy(true);
    try {
      const k = DirectoryKindSchema.safeParse(kind);
      const r = await call('routing:import', { path: path.trim(), ...(k.success ? { kind: k.data } : {}), ...(name.trim() ? { name: name.trim() } : {}) });
      setLast(r);
      notifySuccess(`Imported ${r.rows.toLocaleString('en-US')} rows into “${r.name}”${r.errors ? `; ${r.errors} rows were refused` : ''}.`);
      await load();
    } catch (err) {
      const details = err instanceof ConsoleError ? err.details : [];
      const onPath = details.find((d) => d.field === 'path')?.message;
      setPathError(onPath);
      // A problem of the path alone is said under the field; any other (a missing column, a bad row…) whole, below.
      if (!onPath || details.some((d) => d.field !== 'path')) setImportError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  const shown = (imports ?? []).filter((i) => !kindFilter || i.kind === kindFilter);

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Live checks answer from the directories imported here (the newest import of each kind is current). Sandbox always uses its built-in
        test directory.
      </Text>
      {can('routing:import') && (
      <Paper withBorder p="md" radius="sm">
        <form onSubmit={(e) => void submit(e)} noValidate data-testid="directory-import-form">
          <Stack gap="sm">
            <Title order={5}>Import a directory</Title>
            <Group align="flex-start">
              <TextInput
                data-testid="directory-path-input"
                label="Path of a CSV file on this machine"
                placeholder="/home/me/directories/bic.csv"
                value={path}
                onChange={(e) => setPath(e.currentTarget.value)}
                error={pathError}
                style={{ flex: 1 }}
              />
              <Select
                data-testid="directory-kind-select"
                label="Kind"
                placeholder="Detect from headers"
                clearable
                w={240}
                data={DirectoryKindSchema.options.map((k) => ({ value: k, label: KIND_LABEL[k] ?? k }))}
                value={kind}
                onChange={setKind}
              />
              <TextInput data-testid="directory-name-input" label="Name (optional)" placeholder="e.g. SWIFT BIC 2026-11" value={name} onChange={(e) => setName(e.currentTarget.value)} w={220} />
            </Group>
            <Text size="xs" c="dimmed">
              Expected headers: <Code>bic,bank_name,city,country</Code> · <Code>routing_number,bank_name,city,state</Code> ·{' '}
              <Code>bic,correspondent_bic,currency,confidence</Code>. Samples are in <Code>resources/routing/</Code>.
            </Text>
            {importError && (
              <Alert color="red" title="Could not import the directory" withCloseButton onClose={() => setImportError(null)} data-testid="directory-import-error" style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
                {importError}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button type="submit" leftSection={<IconFileImport size={16} />} loading={busy} data-testid="directory-import-submit">
                Import
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      )}
      {last && last.rowErrors.length > 0 && (
        <Alert color="orange" title={`${last.errors} rows of “${last.name}” were refused`} data-testid="directory-row-errors" withCloseButton onClose={() => setLast(null)}>
          <Table withTableBorder>
            <Table.Tbody>
              {last.rowErrors.slice(0, 20).map((r) => (
                <Table.Tr key={r.line}>
                  <Table.Td w={90}>line {r.line}</Table.Td>
                  <Table.Td>{r.message}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {last.rowErrors.length > 20 && <Text size="xs">…and {last.rowErrors.length - 20} more listed in the import.</Text>}
        </Alert>
      )}
      {imports !== null && imports.length === 0 ? (
        <EmptyState
          data-testid="directories-empty"
          icon={<IconDatabaseImport size={28} />}
          title="No directory imported"
          description="Without a directory, live checks judge only the structure (and routes cannot be found). Import a BIC, ABA or correspondents CSV above."
        />
      ) : (
        <Stack gap="xs">
          <Select label="Kind" placeholder="Any" clearable w={240} data={DirectoryKindSchema.options.map((k) => ({ value: k, label: KIND_LABEL[k] ?? k }))} value={kindFilter} onChange={setKindFilter} data-testid="directories-kind-filter" />
          <Box data-testid="directories-table">
            <DataTable<DirectoryImport>
              withTableBorder
              borderRadius="sm"
              minHeight={shown.length === 0 ? 150 : undefined}
              fetching={imports === null}
              records={shown}
              idAccessor="id"
              noRecordsText="No imports of this kind — clear the filter"
              customRowAttributes={(i) => ({ 'data-testid': `directory-row-${i.id}`, 'data-current': String(i.current) })}
              columns={[
                { accessor: 'name', title: 'Name', render: (i) => <Text size="sm" fw={500}>{i.name}</Text> },
                { accessor: 'kind', title: 'Kind', render: (i) => KIND_LABEL[i.kind] ?? i.kind },
                { accessor: 'importedAt', title: 'Imported', render: (i) => formatTime(i.importedAt) },
                { accessor: 'rows', title: 'Rows', textAlign: 'right' },
                { accessor: 'errors', title: 'Refused rows', textAlign: 'right' },
                {
                  accessor: 'current',
                  title: 'In use',
                  render: (i) => (i.current ? <Badge color="green" variant="light">current</Badge> : <Badge color="gray" variant="outline">replaced</Badge>),
                },
              ]}
            />
          </Box>
        </Stack>
      )}
    </Stack>
  );
}
