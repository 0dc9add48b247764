// Configuration file: download the non-secret configuration, or pick a file, preview what it changes, and apply.
// The file is read in the browser and sent as JSON; the service checks it fully before writing anything.
import { useRef, useState } from 'react';
import { Alert, Badge, Button, FileButton, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconDownload, IconFileImport, IconKey } from '@tabler/icons-react';
import type { ImportPlan } from '../../../src-shared/schemas/settings';
import { call, ConsoleError } from '../../client/bridge';
import { notifyError, notifySuccess } from '../../app/notify';
import { downloadText } from '../wallet/download';
import { ErrorAlert } from './error-alert';

const ACTION_COLOR: Record<string, string> = { create: 'green', update: 'blue', unchanged: 'gray' };

export function ConfigTransferCard({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<{ name: string; content: unknown } | null>(null);
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // Cleared after each pick, so the same file can be picked again once it was fixed on disk.
  const resetPicker = useRef<() => void>(null);

  async function exportNow() {
    try {
      const cfg = await call('config:export', {});
      const day = cfg.exportedAt.slice(0, 10);
      downloadText(`verification-console-config-${day}.json`, `${JSON.stringify(cfg, null, 2)}\n`, 'application/json');
      notifySuccess(`${cfg.webhooks.length} webhooks, ${cfg.prices.length} prices, ${cfg.services.length} services and the saved settings. No secrets.`, 'Configuration exported');
    } catch (e) {
      notifyError(e, 'Could not export the configuration');
    }
  }

  async function pick(f: File | null) {
    resetPicker.current?.();
    setPlan(null);
    setError(null);
    setFile(null);
    if (!f) return;
    let content: unknown;
    try {
      content = JSON.parse(await f.text());
    } catch {
      setError(new ConsoleError({ code: 'VALIDATION_ERROR', message: `${f.name} is not a JSON file.`, hint: 'Pick a file made by Export configuration or `vconsole config export`.' }));
      return;
    }
    setFile({ name: f.name, content });
    setBusy(true);
    try {
      setPlan(await call('config:preview', { file: content }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  async function apply() {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const done = await call('config:import', { file: file.content });
      setPlan(done);
      notifySuccess(`${done.changes.filter((c) => c.action !== 'unchanged').length} change(s) applied from ${file.name}.`, 'Configuration imported');
      onImported();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const changed = plan ? plan.changes.filter((c) => c.action !== 'unchanged').length : 0;
  return (
    <Paper withBorder p="md" data-testid="config-card">
      <Stack gap="sm">
        <Group justify="space-between">
          <div>
            <Title order={4}>Configuration file</Title>
            <Text size="sm" c="dimmed">
              Webhooks (URL, events, description, status), prices, enabled services and saved settings, as JSON. Never secrets, keys or users. Import
              adds and updates; it never deletes.
            </Text>
          </div>
          <Group>
            <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => void exportNow()} data-testid="config-export">
              Export configuration
            </Button>
            <FileButton resetRef={resetPicker} onChange={(f) => void pick(f)} accept="application/json,.json">
              {(props) => (
                <Button variant="default" leftSection={<IconFileImport size={16} />} {...props} data-testid="config-pick">
                  Import…
                </Button>
              )}
            </FileButton>
          </Group>
        </Group>
        <ErrorAlert error={error} title={file ? `${file.name} cannot be imported` : 'Import failed'} testId="config-error" />
        {plan && (
          <Stack gap="xs" data-testid="config-preview">
            <Text size="sm" fw={500}>
              {plan.applied ? `Applied from ${file?.name ?? 'the file'}:` : changed === 0 ? 'Nothing to change: the configuration already matches the file.' : `${changed} change(s) from ${file?.name ?? 'the file'}:`}
            </Text>
            {plan.newWebhookSecrets > 0 && (
              <Alert color="blue" variant="light" icon={<IconKey size={16} />}>
                {plan.newWebhookSecrets} webhook(s) {plan.applied ? 'got' : 'will get'} a new signing secret: secrets are never exported. Rotate a webhook's
                secret in Webhooks to see and hand over the new one.
              </Alert>
            )}
            {plan.restartRequired && (
              <Alert color="orange" variant="light">
                The listener address changes at the next start.
              </Alert>
            )}
            <Table striped>
              <Table.Tbody>
                {plan.changes.map((c) => (
                  <Table.Tr key={`${c.kind}:${c.target}`}>
                    <Table.Td w={110}>
                      <Badge color={ACTION_COLOR[c.action]} variant="light">
                        {c.action}
                      </Badge>
                    </Table.Td>
                    <Table.Td w={90}>{c.kind}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{c.target}</Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        {c.detail}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {!plan.applied && changed > 0 && (
              <Group justify="flex-end">
                <Button variant="default" onClick={() => void pick(null)}>
                  Cancel
                </Button>
                <Button onClick={() => void apply()} loading={busy} data-testid="config-apply">
                  Apply {changed} change(s)
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
