// The Audit page (docs/audit.md): the organization's hash-chained audit trail, newest first, filtered by actor,
// action, target and time; the chain's verification at a glance; exports as CSV (to read) and JSON (to verify
// offline with `vconsole audit verify --file`). Each entry links to the screen of what it changed.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, Group, NumberInput, Pagination, Paper, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconDownload, IconShieldCheck, IconShieldX } from '@tabler/icons-react';
import type { AuditEvent } from '../../../src-shared/schemas/audit';
import { call, fetchDownload } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { useCan } from '../../app/app-info';
import { numberFieldValue } from '../settings/number-field';
import { AuditRetentionDaysSchema } from '../../../src-shared/schemas/audit';
import { PageTitle } from '../../app/page-title';
import { downloadBlob } from '../wallet/download';
import { paths } from '../../app/routes';
import { reversedRangeError } from '../../app/date-range';
import { Link, useNavigate } from 'react-router';
import type { MouseEvent } from 'react';
import { openById } from '../palette/open-by-id';

const PAGE = 25;

interface Filters {
  actor: string;
  action: string;
  target: string;
  from: string;
  to: string;
}

const EMPTY: Filters = { actor: '', action: '', target: '', from: '', to: '' };

type Verify = Awaited<ReturnType<typeof call<'audit:verify'>>>;

/** A date input (YYYY-MM-DD) as the start of that day in UTC, for the API's datetime filters. */
function dayStart(d: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}$/.test(d) ? `${d}T00:00:00.000Z` : undefined;
}

function nextDay(d: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) return undefined;
  const t = new Date(`${d}T00:00:00.000Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString();
}

/** The screen an entry's target lives on (docs/dashboard.md "Addresses"); null when it has none. */
function targetPath(type: string | null, id: string): string | null {
  switch (type) {
    case 'verification':
      return paths.verification(id);
    case 'webhook':
      return paths.webhook(id);
    case 'apiKey':
      return paths.section('keys');
    case 'user':
    case 'settings':
      return paths.section('settings');
    case 'provider':
      return paths.section('providers');
    case 'service':
    case 'ledgerEntry':
    case 'wallet':
      return paths.section('wallet');
    default:
      return null;
  }
}

/** Targets that belong to one environment: opened where they live (lookup:id), not in the console's current one. */
const PER_ENVIRONMENT = new Set(['verification', 'webhook']);

function TargetLink({ type, id }: { type: string | null; id: string }) {
  const to = targetPath(type, id);
  const navigate = useNavigate();
  // A live verification or webhook opens in live (asking first, as any switch to live does), a sandbox one in
  // sandbox: the entry's target is looked up by id, as the palette's "Open by id" does.
  const onClick =
    type && PER_ENVIRONMENT.has(type)
      ? (ev: MouseEvent) => {
          if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
          ev.preventDefault();
          openById(id, (path) => void navigate(path)).catch((e: unknown) => notifyError(e, `Could not open ${id}`));
        }
      : undefined;
  // One line with an ellipsis, the whole id on hover; a link when the target has a screen.
  return to ? (
    <Text component={Link} to={to} onClick={onClick} size="xs" ff="monospace" truncate="end" c="blue" td="underline" title={id} aria-label={`Open ${type ?? 'target'} ${id}`} display="block">
      {id}
    </Text>
  ) : (
    <Text size="xs" ff="monospace" truncate="end" title={id}>
      {id}
    </Text>
  );
}

function DetailText({ e }: { e: AuditEvent }) {
  const entries = Object.entries(e.detail);
  if (entries.length === 0) return null;
  const text = entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ');
  return (
    <Text size="xs" c="dimmed" lineClamp={2} title={text} style={{ wordBreak: 'break-word' }}>
      {text}
    </Text>
  );
}

/**
 * How long entries are kept (audit:setRetention, owners; 30–3650 days). It was documented as a console control
 * that did not exist. Refused in words under the field like the Settings page's numbers.
 */
function RetentionControl({ days, onSaved }: { days: number; onSaved: () => void }) {
  const may = useCan()('audit:setRetention');
  const [value, setValue] = useState<string | number>(days);
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setValue(days), [days]);
  async function save() {
    const n = numberFieldValue(value);
    const ok = AuditRetentionDaysSchema.safeParse(n);
    if (!ok.success) return setProblem('A whole number of days from 30 to 3650.');
    setBusy(true);
    try {
      const r = await call('audit:setRetention', { days: ok.data });
      notifySuccess(`Audit entries are now kept ${r.days} days.`, 'Audit retention');
      onSaved();
    } catch (e) {
      notifyError(e, 'The retention was not changed');
    } finally {
      setBusy(false);
    }
  }
  return (
    <Group align="flex-start" gap="xs" data-testid="audit-retention">
      <NumberInput
        label="Keep entries (days)"
        description={may ? '30–3650; older entries are pruned hourly, the chain kept from a checkpoint' : 'Owners change the retention'}
        value={value}
        onChange={(v) => {
          setValue(v);
          setProblem(undefined);
        }}
        min={30}
        max={3650}
        clampBehavior="none"
        allowDecimal={false}
        readOnly={!may}
        error={problem}
        w={260}
        data-testid="audit-retention-days"
      />
      {may && (
        <Button mt={44} size="xs" variant="default" loading={busy} disabled={numberFieldValue(value) === days} onClick={() => void save()} data-testid="audit-retention-save">
          Save
        </Button>
      )}
    </Group>
  );
}

export function AuditPage() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<AuditEvent[] | null>(null);
  const [total, setTotal] = useState(0);
  const [verify, setVerify] = useState<Verify | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      const f = applied;
      const r = await call('audit:list', {
        limit: PAGE,
        offset: (page - 1) * PAGE,
        ...(f.actor.trim() ? { actor: f.actor.trim() } : {}),
        ...(f.action.trim() ? { action: f.action.trim() } : {}),
        ...(f.target.trim() ? { target: f.target.trim() } : {}),
        ...(dayStart(f.from) ? { from: dayStart(f.from)! } : {}),
        ...(nextDay(f.to) ? { to: nextDay(f.to)! } : {}),
      });
      setRows(r.data);
      setTotal(r.pagination.total);
    } catch (e) {
      setError(e);
    }
  }, [applied, page]);

  useEffect(() => {
    void load();
  }, [load]);

  // The whole chain is hashed (every live check is an entry): once per visit and when asked, not per page or filter.
  const [verifying, setVerifying] = useState(false);
  const [exporting, setExporting] = useState<'json' | 'csv' | null>(null);
  const verifyChain = useCallback(async () => {
    setVerifying(true);
    try {
      setVerify(await call('audit:verify', {}));
    } catch (e) {
      // Not "could not be loaded": the entries may well be listed; it is the check that failed.
      notifyError(e, 'The audit trail could not be verified');
    } finally {
      setVerifying(false);
    }
  }, []);

  useEffect(() => {
    void verifyChain();
  }, [verifyChain]);

  async function exportAs(format: 'json' | 'csv') {
    // A large trail takes a while (75,000 entries under load: 15–25 s); the button says so until the file is saved.
    setExporting(format);
    try {
      // The door streams the file (tens of MB on a large store): the web door in a browser, the app scheme in the
      // desktop app; never one string in the bridge's JSON or in one IPC message. The same channel and role answer it.
      const x = await fetchDownload(`audit/export?format=${format}`);
      downloadBlob(x.filename, x.blob);
    } catch (e) {
      notifyError(e, 'The export failed');
    } finally {
      setExporting(null);
    }
  }

  /** An export's button: busy while its file is on the way, and the other one waits meanwhile. */
  const exportButton = (format: 'json' | 'csv') => (
    <Button
      variant="default"
      leftSection={<IconDownload size={16} aria-hidden />}
      loading={exporting === format}
      disabled={exporting !== null && exporting !== format}
      onClick={() => void exportAs(format)}
      data-testid={`audit-export-${format}`}
    >
      Export {format.toUpperCase()}
    </Button>
  );

  const set = (k: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement>) => setFilters({ ...filters, [k]: e.currentTarget.value });

  return (
    <Stack gap="md" data-testid="audit-page">
      <PageTitle title="Audit" />
      {!verify && verifying && (
        <Text size="sm" c="dimmed" data-testid="audit-verifying">
          Verifying the audit trail…
        </Text>
      )}
      {verify && (
        <Alert
          color={verify.ok ? 'teal' : 'red'}
          icon={verify.ok ? <IconShieldCheck size={18} aria-hidden /> : <IconShieldX size={18} aria-hidden />}
          title={verify.ok ? `The audit trail verifies: ${verify.entries} entries, unbroken` : 'The audit trail does not verify'}
          data-testid="audit-verify"
        >
          {verify.ok ? (
            <Text size="sm">
              Head #{verify.head.seq} <Code>{verify.head.hash.slice(0, 16)}…</Code>. Entries older than {verify.retentionDays} days are pruned
              {verify.checkpoint ? `; the chain starts from checkpoint #${verify.checkpoint.seq}` : ''}.
            </Text>
          ) : (
            <Text size="sm">
              Entry #{verify.firstBad?.seq} ({verify.firstBad?.id}): {verify.firstBad?.reason}. Someone changed the store outside the service.
            </Text>
          )}
          <Button mt={6} size="compact-xs" variant="subtle" loading={verifying} onClick={() => void verifyChain()} data-testid="audit-verify-again">
            Verify again
          </Button>
        </Alert>
      )}
      {verify && <RetentionControl days={verify.retentionDays} onSaved={() => void verifyChain()} />}
      <Paper withBorder p="sm">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            // A reversed range is shown under To and not applied: it could only list nothing.
            if (reversedRangeError(filters.from, filters.to)) return;
            setPage(1);
            setApplied(filters);
          }}
        >
          <Group align="flex-end" gap="sm" wrap="wrap">
            <TextInput label="Actor" placeholder="email, key name or id" value={filters.actor} onChange={set('actor')} w={200} />
            <TextInput label="Action" placeholder="e.g. key. or user.created" value={filters.action} onChange={set('action')} w={180} />
            <TextInput label="Target id" placeholder="key_…, usr_…" value={filters.target} onChange={set('target')} w={170} />
            <TextInput label="From" type="date" value={filters.from} onChange={set('from')} w={150} data-testid="audit-from" />
            <TextInput label="To" type="date" value={filters.to} onChange={set('to')} error={reversedRangeError(filters.from, filters.to)} w={150} data-testid="audit-to" />
            <Button type="submit">Filter</Button>
            <Button
              variant="default"
              onClick={() => {
                setFilters(EMPTY);
                setApplied(EMPTY);
                setPage(1);
              }}
            >
              Clear
            </Button>
            <Group gap="xs" ml="auto">
              <Tooltip label="The whole chain, for vconsole audit verify --file">{exportButton('json')}</Tooltip>
              {exportButton('csv')}
            </Group>
          </Group>
        </form>
      </Paper>
      {error !== null && (
        <Alert color="red" title="The audit trail could not be loaded">
          {(error as Error).message}
        </Alert>
      )}
      {rows && rows.length === 0 && <Text c="dimmed">No entry matches.</Text>}
      {rows && rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          {/* The detail sits under its action (two lines at most, all of it on hover); # and the target's column give
              way on narrow windows — the target stays reachable through the detail and the filters. */}
          <Table striped data-testid="audit-table" layout="fixed">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={56} visibleFrom="lg">
                  #
                </Table.Th>
                <Table.Th w={150}>When</Table.Th>
                <Table.Th>Action and detail</Table.Th>
                <Table.Th w={190}>Who</Table.Th>
                <Table.Th w={200} visibleFrom="lg">
                  Target
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td visibleFrom="lg">{e.seq}</Table.Td>
                  <Table.Td>{formatTime(e.at)}</Table.Td>
                  <Table.Td>
                    <Code>{e.action}</Code>
                    <DetailText e={e} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{e.actor.label}</Text>
                    <Badge size="xs" variant="light" color="gray">
                      {e.door}
                    </Badge>
                  </Table.Td>
                  <Table.Td visibleFrom="lg">
                    {e.target.id ? (
                      <TargetLink type={e.target.type} id={e.target.id} />
                    ) : (
                      <Text size="xs" c="dimmed">
                        {e.target.type ?? '—'}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {total > PAGE && <Pagination total={Math.ceil(total / PAGE)} value={page} onChange={setPage} />}
    </Stack>
  );
}
