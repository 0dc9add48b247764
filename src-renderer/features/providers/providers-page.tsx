// The Providers page (live mode, docs/providers.md): which upstream answers which kind and corridor, its circuit
// state and last error, a form to add or change one (the credential is a password field that is never filled back
// from the service: only "configured ••••last4" is shown), an optional trusted CA certificate for a private upstream
// (pasted or loaded from a file; shown back as subject + fingerprint), a health probe, and the cache TTL per kind.
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  FileButton,
  Group,
  Modal,
  NumberInput,
  Paper,
  PasswordInput,
  Select,
  Stack,
  Table,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconAlertCircle, IconPlugConnected } from '@tabler/icons-react';
import { PROVIDER_ADAPTERS, PROVIDER_KINDS, type ProbeResult, type ProvidersOverview, type ProviderView } from '../../../src-shared/schemas/providers';
import { call, ConsoleError } from '../../client/bridge';
import { notifySuccess } from '../../app/notify';
import { PageTitle } from '../../app/page-title';
import { CACHE_TTL_MAX_SECONDS, readCacheTtl } from './cache-ttl';
import { placeDetails } from '../../app/field-errors';

const CIRCUIT_COLOR = { closed: 'green', 'half-open': 'yellow', open: 'red' } as const;

type Form = {
  id: string;
  adapter: (typeof PROVIDER_ADAPTERS)[number];
  baseUrl: string;
  authScheme: 'bearer' | 'api-key';
  secret: string;
  /** A new CA certificate (PEM) to trust; empty keeps the stored one. */
  caCert: string;
  clearCa: boolean;
  routes: string[];
  timeoutMs: number;
  deadlineMs: number;
  maxConcurrency: number;
  maxQueue: number;
  retries: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
};

const EMPTY: Form = {
  id: '',
  adapter: 'generic',
  baseUrl: '',
  authScheme: 'bearer',
  secret: '',
  caCert: '',
  clearCa: false,
  routes: [],
  timeoutMs: 5000,
  deadlineMs: 15000,
  maxConcurrency: 8,
  maxQueue: 32,
  retries: 2,
  breakerThreshold: 5,
  breakerCooldownMs: 30000,
};

function fromView(p: ProviderView): Form {
  // The secret field starts empty: leaving it empty keeps the stored credential.
  return { ...EMPTY, ...p, secret: '', caCert: '', clearCa: false };
}

/** The form's fields a refusal can name (`routes.3` is the Routes field). */
const FORM_FIELDS: ReadonlySet<string> = new Set(['id', 'baseUrl', 'secret', 'caCert', 'routes', 'timeoutMs', 'deadlineMs', 'retries', 'maxConcurrency', 'maxQueue', 'breakerThreshold', 'breakerCooldownMs']);

const splitDetails = (error: unknown) => placeDetails(error, FORM_FIELDS);

function ErrorBox({ error, placed = false }: { error: unknown; placed?: boolean }) {
  if (!error) return null;
  const e = error instanceof ConsoleError ? error : null;
  // Every detail said under its field: the box has nothing to add.
  const rest = placed ? splitDetails(error).rest : (e?.details ?? []);
  if (placed && e && rest.length === 0 && e.details.length > 0) return null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} data-testid="providers-error">
      <Text size="sm">{e ? e.message : 'The console hit an unexpected problem.'}</Text>
      {rest.map((d) => (
        <Text size="sm" key={`${d.field}:${d.message}`}>
          <Text span ff="monospace" size="sm">
            {d.field}
          </Text>
          : {d.message}
        </Text>
      ))}
    </Alert>
  );
}

function ProviderForm({ initial, editing, onClose, onSaved }: { initial: Form; editing: ProviderView | null; onClose: () => void; onSaved: () => void }) {
  const [f, setF] = useState<Form>(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // Cleared after each pick, so the same file can be loaded again after it was fixed on disk.
  const resetCaFile = useRef<() => void>(null);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setF((cur) => ({ ...cur, [k]: v }));
  const under = splitDetails(error).under;
  const num = (k: keyof Form, label: string) => (
    <NumberInput label={label} value={f[k] as number} min={0} onChange={(v) => set(k, (typeof v === 'number' ? v : Number(v)) as never)} error={under[k]} data-testid={`provider-${k}`} />
  );

  async function save() {
    setBusy(true);
    setError(null);
    try {
      const { secret, caCert, clearCa, ...rest } = f;
      await call('providers:set', {
        ...rest,
        ...(secret ? { secret } : {}),
        ...(caCert.trim() ? { caCert } : {}),
        ...(clearCa && !caCert.trim() ? { clearCaCert: true } : {}),
        ...(editing?.mapping ? { mapping: editing.mapping } : {}),
      });
      // Never keep the typed credential in memory longer than the save.
      setF((cur) => ({ ...cur, secret: '' }));
      notifySuccess(`Provider ${f.id} saved.`, 'Providers');
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="sm">
      <TextInput label="Id" value={f.id} disabled={editing !== null} onChange={(e) => set('id', e.currentTarget.value)} error={under['id']} data-testid="provider-id" />
      <Select label="Adapter" data={[...PROVIDER_ADAPTERS]} value={f.adapter} allowDeselect={false} onChange={(v) => v && set('adapter', v as Form['adapter'])} data-testid="provider-adapter" />
      {f.adapter !== 'stand-in' && (
        <>
          <TextInput label="Base URL" placeholder="https://upstream.example.com" value={f.baseUrl} onChange={(e) => set('baseUrl', e.currentTarget.value)} error={under['baseUrl']} data-testid="provider-base-url" />
          <Select label="Authentication" data-testid="provider-auth" data={[{ value: 'bearer', label: 'Authorization: Bearer' }, { value: 'api-key', label: 'X-API-Key header' }]} value={f.authScheme} allowDeselect={false} onChange={(v) => v && set('authScheme', v as Form['authScheme'])} />
          <PasswordInput
            label="Credential"
            description={editing?.secret.configured ? `Configured (${editing.secret.masked}). Leave empty to keep it.` : 'Stored encrypted; never shown again after saving.'}
            value={f.secret}
            autoComplete="new-password"
            onChange={(e) => set('secret', e.currentTarget.value)}
            error={under['secret']}
            data-testid="provider-secret"
          />
          <Textarea
            label="Trusted CA certificate (optional)"
            description={
              editing?.ca
                ? `Trusted now: ${editing.ca.subject} — SHA-256 ${editing.ca.fingerprint256}. Paste another to replace it.`
                : 'For a private or self-signed upstream (https:// only): PEM text, -----BEGIN CERTIFICATE-----. Without it, the public roots are trusted.'
            }
            placeholder="-----BEGIN CERTIFICATE-----"
            autosize
            minRows={2}
            maxRows={6}
            styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
            value={f.caCert}
            onChange={(e) => set('caCert', e.currentTarget.value)}
            error={under['caCert']}
            data-testid="provider-ca"
          />
          <Group gap="sm">
            <FileButton
              resetRef={resetCaFile}
              accept=".pem,.crt,.cer,application/x-pem-file"
              onChange={(file) => {
                resetCaFile.current?.();
                void file?.text().then((t) => set('caCert', t));
              }}
            >
              {(props) => (
                <Button {...props} size="xs" variant="default" data-testid="provider-ca-file">
                  Load from file…
                </Button>
              )}
            </FileButton>
            {editing?.ca && (
              <Checkbox label="Stop trusting the stored CA" checked={f.clearCa} onChange={(e) => set('clearCa', e.currentTarget.checked)} data-testid="provider-ca-clear" />
            )}
          </Group>
        </>
      )}
      <TagsInput label="Routes" description="kind:CC or kind:* — e.g. account:GB, account:DE, phone:*" value={f.routes} onChange={(v) => set('routes', v)} error={under['routes']} data-testid="provider-routes" />
      <Group grow>
        {num('timeoutMs', 'Request timeout (ms)')}
        {num('deadlineMs', 'Overall deadline (ms)')}
        {num('retries', 'Retries')}
      </Group>
      <Group grow>
        {num('maxConcurrency', 'Max concurrency')}
        {num('maxQueue', 'Queue')}
        {num('breakerThreshold', 'Breaker: failures')}
        {num('breakerCooldownMs', 'Breaker: cool-down (ms)')}
      </Group>
      <ErrorBox error={error} placed />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={save} loading={busy} data-testid="provider-save">
          Save
        </Button>
      </Group>
    </Stack>
  );
}

/** One kind's TTL: saved on leaving the field when it is a whole number of seconds and changed; else refused in words. */
function CacheTtlField({ kind, saved, onSave }: { kind: (typeof PROVIDER_KINDS)[number]; saved: number; onSave: (seconds: number) => Promise<void> }) {
  const [value, setValue] = useState<string | number>(saved);
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => setValue(saved), [saved]);
  return (
    <NumberInput
      label={`${kind} (s)`}
      w={180}
      min={0}
      max={CACHE_TTL_MAX_SECONDS}
      clampBehavior="none"
      value={value}
      onChange={(v) => {
        setValue(v);
        setProblem(undefined);
      }}
      onBlur={() => {
        const r = readCacheTtl(value);
        if (!r.ok) return setProblem(r.error);
        if (r.seconds !== saved) void onSave(r.seconds);
      }}
      error={problem}
      data-testid={`cache-ttl-${kind}`}
    />
  );
}

export function ProvidersPage() {
  const [data, setData] = useState<ProvidersOverview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState<{ initial: Form; editing: ProviderView | null } | null>(null);
  const [probes, setProbes] = useState<Record<string, ProbeResult>>({});

  const load = useCallback(async () => {
    try {
      setData(await call('providers:list', {}));
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function probe(id: string) {
    try {
      const r = await call('providers:test', { id });
      setProbes((p) => ({ ...p, [id]: r }));
      await load();
    } catch (e) {
      setError(e);
    }
  }
  async function remove(id: string) {
    try {
      await call('providers:remove', { id });
      notifySuccess(`Provider ${id} removed.`, 'Providers');
      await load();
    } catch (e) {
      setError(e);
    }
  }
  async function setTtl(kind: (typeof PROVIDER_KINDS)[number], ttlSeconds: number) {
    try {
      const ttl = await call('providers:cacheTtl', { kind, ttlSeconds });
      setData((d) => (d ? { ...d, cacheTtlSeconds: ttl } : d));
      // Cached answers are billed, so a change is confirmed, not silent.
      notifySuccess(ttlSeconds === 0 ? `The ${kind} cache is off.` : `${kind} answers are now cached for ${ttlSeconds} s.`, 'Cache saved');
    } catch (e) {
      setError(e);
    }
  }

  return (
    <Stack gap="md" data-testid="providers-page">
      <PageTitle
        title="Providers"
        actions={
          <Button leftSection={<IconPlugConnected size={16} />} onClick={() => setForm({ initial: EMPTY, editing: null })} data-testid="provider-add">
            Add provider
          </Button>
        }
      />
      <Text size="sm" c="dimmed">
        The upstreams of the <b>live</b> environment (sandbox checks never reach one): live checks go to the provider routed for their kind and country. A
        live check with no route is refused before it is charged.
      </Text>
      <ErrorBox error={error} />
      {data && data.providers.length === 0 && (
        <Alert color="yellow" variant="light" data-testid="providers-empty">
          No provider is configured: every live check is refused (403 SERVICE_NOT_ENABLED) until one is.
        </Alert>
      )}
      {data && data.providers.length > 0 && (
        <Table striped withTableBorder data-testid="providers-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Id</Table.Th>
              <Table.Th>Adapter</Table.Th>
              <Table.Th>Routes</Table.Th>
              <Table.Th>Credential</Table.Th>
              <Table.Th>Circuit</Table.Th>
              <Table.Th>Last error</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.providers.map((p) => (
              <Table.Tr key={p.id} data-testid={`provider-row-${p.id}`}>
                <Table.Td>
                  <Text fw={600}>{p.id}</Text>
                  <Text size="xs" c="dimmed">
                    {p.baseUrl || 'local'}
                  </Text>
                </Table.Td>
                <Table.Td>{p.adapter}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {p.routes.map((r) => (
                      <Badge key={r} variant="light">
                        {r}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td data-testid={`provider-credential-${p.id}`}>
                  {p.secret.configured ? <Text ff="monospace">{p.secret.masked}</Text> : <Text c="dimmed">none</Text>}
                  {p.ca && (
                    <Text size="xs" c="dimmed" title={`SHA-256 ${p.ca.fingerprint256}`} data-testid={`provider-ca-${p.id}`}>
                      CA: {p.ca.subject} ({p.ca.fingerprint256.slice(0, 11)}…)
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Badge color={CIRCUIT_COLOR[p.state.circuit]} data-testid={`provider-circuit-${p.id}`}>
                    {p.state.circuit}
                  </Badge>
                  {p.state.inFlight + p.state.queued > 0 && (
                    <Text size="xs" c="dimmed">
                      {p.state.inFlight} in flight, {p.state.queued} queued
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{p.state.lastError ?? '—'}</Text>
                  {p.state.lastErrorAt && (
                    <Text size="xs" c="dimmed">
                      {new Date(p.state.lastErrorAt).toLocaleString()}
                    </Text>
                  )}
                  {probes[p.id] && (
                    <Text size="xs" c={probes[p.id]!.ok ? 'green' : 'red'} data-testid={`provider-probe-${p.id}`}>
                      Probe: {probes[p.id]!.message}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button size="xs" variant="default" onClick={() => probe(p.id)} data-testid={`provider-test-${p.id}`}>
                      Test
                    </Button>
                    <Button size="xs" variant="default" onClick={() => setForm({ initial: fromView(p), editing: p })} data-testid={`provider-edit-${p.id}`}>
                      Edit
                    </Button>
                    <Button size="xs" color="red" variant="subtle" onClick={() => remove(p.id)} data-testid={`provider-remove-${p.id}`}>
                      Remove
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {data && (
        <Paper withBorder p="md">
          <Title order={5}>Cache of definitive answers</Title>
          <Text size="sm" c="dimmed" mb="xs">
            Repeat questions within the time to live are answered from the cache (source: cache) and billed like any answer. 0 turns the cache off for the kind.
          </Text>
          <Group align="flex-start">
            {PROVIDER_KINDS.map((k) => (
              <CacheTtlField key={k} kind={k} saved={data.cacheTtlSeconds[k]} onSave={(n) => setTtl(k, n)} />
            ))}
          </Group>
          <Text size="xs" c="dimmed" mt="xs">
            Credentials at rest: {data.secretProtection}
          </Text>
        </Paper>
      )}
      <Modal opened={form !== null} onClose={() => setForm(null)} title={form?.editing ? `Edit ${form.editing.id}` : 'Add provider'} size="lg">
        {form && (
          <ProviderForm
            initial={form.initial}
            editing={form.editing}
            onClose={() => setForm(null)}
            onSaved={() => {
              setForm(null);
              void load();
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}
