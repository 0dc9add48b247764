// The service part of Settings: API listener (saved, applied at the next start), rate limit (applied at once),
// data folder (shown; moved with --data-dir), theme, and the developer options of decisions §11.
import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  useMantineColorScheme,
  type MantineColorScheme,
} from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import type { SettingsView } from '../../../src-shared/schemas/settings';
import { ListenHostSchema, ListenPortSchema, RateLimitSchema } from '../../../src-shared/schemas/settings';
import { call } from '../../client/bridge';
import { notifySuccess } from '../../app/notify';
import { ErrorAlert } from './error-alert';
import { numberFieldValue } from './number-field';

export function ListenerCard({ view, onSaved, readOnly = false }: { view: SettingsView; onSaved: (v: SettingsView) => void; readOnly?: boolean }) {
  const [host, setHost] = useState(view.saved.host);
  const [port, setPort] = useState<string | number>(view.saved.port);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<{ host?: string; port?: string }>({});
  const [busy, setBusy] = useState(false);

  async function save() {
    const h = ListenHostSchema.safeParse(host);
    const p = ListenPortSchema.safeParse(numberFieldValue(port));
    const next = { ...(h.success ? {} : { host: 'An IP address or host name, without scheme or port.' }), ...(p.success ? {} : { port: 'A whole number from 1 to 65535.' }) };
    setLocal(next);
    if (!h.success || !p.success) return;
    setBusy(true);
    setError(null);
    try {
      const v = await call('settings:update', { host: h.data, port: p.data });
      onSaved(v);
      notifySuccess(v.restartRequired ? 'Saved. Restart the service to listen on the new address.' : 'Saved.', 'API listener');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const running = view.running.port === null ? 'not listening' : `${view.running.host}:${view.running.port}`;
  return (
    <Paper withBorder p="md" data-testid="listener-card">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>API listener</Title>
          {view.restartRequired && (
            <Badge color="orange" variant="light" data-testid="restart-badge">
              Restart to apply
            </Badge>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          Running on <Code>{running}</Code>. A new address is checked now (a port another program holds is refused) and used from the next start;
          the console itself is served from this listener, so it is not moved under your feet. <Code>--host</Code> and <Code>--port</Code> on the
          command line win over the saved values.
        </Text>
        <Group align="flex-start" grow>
          <TextInput label="Host" description="127.0.0.1 keeps the API on this computer" value={host} onChange={(e) => { setHost(e.currentTarget.value); setLocal((l) => ({ ...l, host: undefined })); }} error={local.host} data-testid="settings-host" />
          <NumberInput label="Port" description="1–65535" value={port} onChange={(v) => { setPort(v); setLocal((l) => ({ ...l, port: undefined })); }} min={1} max={65535} clampBehavior="none" allowDecimal={false} error={local.port} data-testid="settings-port" />
        </Group>
        {!view.restartRequired && view.running.port !== null && (view.running.host !== view.saved.host || view.running.port !== view.saved.port) && (
          <Text size="sm" c="dimmed" data-testid="listener-overridden">
            This run uses <Code>--host</Code>/<Code>--port</Code> from the command line; the saved {view.saved.host}:{view.saved.port} applies when the
            service starts without them.
          </Text>
        )}
        {host.trim() !== '127.0.0.1' && host.trim() !== 'localhost' && host.trim() !== '::1' && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={16} />}>
            {host.trim()} is not a loopback address: other computers on the network could reach the API. The service starts on it
            only as a team server, with <Code>--public-url</Code> naming its address (docs/team-server.md); without it the next start
            refuses to listen.
          </Alert>
        )}
        <ErrorAlert error={error} title="The listener was not saved" testId="listener-error" />
        <Group justify="flex-end">
          <Button onClick={() => void save()} loading={busy} disabled={readOnly} title={readOnly ? 'Owners and admins change settings' : undefined} data-testid="settings-listener-save">
            Save listener
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

export function RateLimitCard({ view, onSaved, readOnly = false }: { view: SettingsView; onSaved: (v: SettingsView) => void; readOnly?: boolean }) {
  const [value, setValue] = useState<string | number>(view.saved.rateLimitPerMinute);
  const [error, setError] = useState<unknown>(null);
  const [local, setLocal] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  async function save() {
    // An empty field is not 0: 0 turns the limit off, which must be typed, never inferred from a cleared field.
    const n = numberFieldValue(value);
    const r = RateLimitSchema.safeParse(n);
    setLocal(r.success ? undefined : n === null ? 'Enter a number (0 turns the limit off).' : 'A whole number from 0 (no limit) to 1,000,000.');
    if (!r.success) return;
    setBusy(true);
    setError(null);
    try {
      const v = await call('settings:update', { rateLimitPerMinute: r.data });
      onSaved(v);
      notifySuccess(`Each key may now make ${r.data === 0 ? 'unlimited' : r.data} requests per minute.`, 'Rate limit applied');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="md" data-testid="rate-limit-card">
      <Stack gap="sm">
        <Title order={4}>Rate limit</Title>
        <Text size="sm" c="dimmed">
          Requests per minute for each API key or signed-in user; more are answered 429 RATE_LIMITED with Retry-After. Applies at once. In force now:{' '}
          <Code data-testid="rate-limit-running">{view.running.rateLimitPerMinute === 0 ? 'no limit' : `${view.running.rateLimitPerMinute}/min`}</Code>
        </Text>
        <Group align="flex-end">
          <NumberInput label="Requests per minute" description="0 turns the limit off" value={value} onChange={(v) => { setValue(v); setLocal(undefined); }} min={0} max={1_000_000} clampBehavior="none" allowDecimal={false} thousandSeparator="," error={local} w={240} data-testid="settings-rate-limit" />
          <Button onClick={() => void save()} loading={busy} disabled={readOnly} title={readOnly ? 'Owners and admins change settings' : undefined} data-testid="settings-rate-limit-save">
            Apply
          </Button>
        </Group>
        <ErrorAlert error={error} title="The rate limit was not changed" testId="rate-limit-error" />
      </Stack>
    </Paper>
  );
}

export function DataFolderCard({ dataDir }: { dataDir: string }) {
  return (
    <Paper withBorder p="md" data-testid="data-folder-card">
      <Stack gap="xs">
        <Title order={4}>Data folder</Title>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="settings-data-dir" style={{ wordBreak: 'break-all' }}>
            {dataDir}
          </Code>
          <CopyButton value={dataDir}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? 'Copied' : 'Copy the path'} withArrow>
                <ActionIcon variant="subtle" color={copied ? 'green' : 'gray'} onClick={copy} aria-label="Copy the data folder path">
                  {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                </ActionIcon>
              </Tooltip>
            )}
          </CopyButton>
        </Group>
        <Text size="sm" c="dimmed">
          The store, its settings and uploads live here. To use another folder, stop the service, move or copy the folder, and start it with{' '}
          <Code>--data-dir DIR</Code> (or <Code>VCONSOLE_DATA_DIR</Code>). Back it up while the service is stopped.
        </Text>
      </Stack>
    </Paper>
  );
}

export function ThemeCard() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Paper withBorder p="md" data-testid="theme-card">
      <Group justify="space-between">
        <div>
          <Title order={4}>Theme</Title>
          <Text size="sm" c="dimmed">
            Remembered by this browser or window. System follows the operating system.
          </Text>
        </div>
        <SegmentedControl
          data-testid="theme-switch"
          value={colorScheme}
          onChange={(v) => setColorScheme(v as MantineColorScheme)}
          data={[
            { value: 'light', label: 'Light' },
            { value: 'dark', label: 'Dark' },
            { value: 'auto', label: 'System' },
          ]}
        />
      </Group>
    </Paper>
  );
}

export function DeveloperOptionsCard({ options }: { options: SettingsView['developerOptions'] }) {
  const relaxed = options.allowWebhookHosts.length > 0;
  const fastRetry = options.retryUnitMs !== 60_000;
  return (
    <Paper withBorder p="md" data-testid="developer-options-card">
      <Stack gap="xs">
        <Title order={4}>Developer options</Title>
        {(relaxed || fastRetry) && (
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Developer option active" data-testid="settings-dev-warning">
            This service runs with options meant for development, demos and tests. Restart without them for normal use.
          </Alert>
        )}
        <Group gap="xs">
          <Text size="sm" w={220}>
            Allowed webhook hosts
          </Text>
          {relaxed ? (
            options.allowWebhookHosts.map((h) => (
              <Badge key={h} color="yellow" variant="light" data-testid="dev-allow-host">
                {h}
              </Badge>
            ))
          ) : (
            <Text size="sm" c="dimmed">
              none (every private URL is refused)
            </Text>
          )}
        </Group>
        <Group gap="xs">
          <Text size="sm" w={220}>
            Retry unit
          </Text>
          <Text size="sm" c={fastRetry ? 'var(--mantine-color-orange-light-color)' : 'dimmed'} data-testid="dev-retry-unit">
            {options.retryUnitMs} ms per schedule minute{fastRetry ? '' : ' (normal)'}
          </Text>
        </Group>
        <Text size="xs" c="dimmed">
          Set only on the command line (<Code>vconsole serve --allow-webhook-host HOST:PORT --retry-unit-ms N</Code>) and never saved, so a
          relaxed rule cannot outlive the session that needed it.
        </Text>
      </Stack>
    </Paper>
  );
}
