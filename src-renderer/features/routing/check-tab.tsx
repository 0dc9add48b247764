// The single checks: BIC, ABA routing number and correspondents, each with its structured result (parts, flags,
// bank, directory match, and the reasons or error code that explain a "not valid").
import { useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Badge, Button, Code, Group, List, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconCheck, IconX } from '@tabler/icons-react';
import { IDENTIFIER_MAX, type BicAnswer, type CorrespondentsAnswer, type RoutingNumberAnswer } from '../../../src-shared/schemas/routing';
import { LivePrice } from '../wallet/live-cost';
import { call } from '../../client/bridge';
import { formatMoney, formatTime } from '../../app/format';
import { notifyError } from '../../app/notify';
import { IdWithCopy } from '../../app/copy-id';
import { useConsole } from '../../app/store';
import { isCurrencyCode } from '../../../src-shared/money';

type Kind = 'bic' | 'aba' | 'correspondents';
type Answer = { kind: 'bic'; a: BicAnswer } | { kind: 'aba'; a: RoutingNumberAnswer } | { kind: 'correspondents'; a: CorrespondentsAnswer };
type Common = BicAnswer | RoutingNumberAnswer | CorrespondentsAnswer;

function Flag({ label, value }: { label: string; value: boolean | null }) {
  return (
    <Badge variant="light" color={value === null ? 'gray' : value ? 'green' : 'red'} leftSection={value === null ? null : value ? <IconCheck size={12} /> : <IconX size={12} />}>
      {label}: {value === null ? 'n/a' : value ? 'yes' : 'no'}
    </Badge>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} component="div">
        {children ?? '—'}
      </Text>
    </Stack>
  );
}

function directoryText(a: Common): string {
  if (a.directoryMatch === null) return a.directory ? `not consulted (${a.directory.name})` : 'no directory consulted (structure only)';
  const name = a.directory ? ` ${a.directory.name}` : '';
  return a.directoryMatch ? `found in${name}` : `not found in${name}`;
}

/**
 * The one verdict of a routing check: valid, not valid, not found (an identifier nobody knows), or inconclusive (it
 * could not be checked: no directory to look in; not a negative result, never charged).
 */
export function verdict(a: Pick<Common, 'valid' | 'error'>): { label: string; color: string } {
  if (a.valid) return { label: 'Valid', color: 'green' };
  if (a.error?.code === 'INCONCLUSIVE') return { label: 'Inconclusive', color: 'gray' };
  if (a.error?.code.endsWith('NOT_FOUND')) return { label: 'Not found', color: 'orange' };
  return { label: 'Not valid', color: 'red' };
}

function ResultHeader({ a, title }: { a: Common; title: string }) {
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={4}>{title}</Title>
          {/* One verdict: the check's status and the identifier's validity never sit side by side. */}
          <Badge size="lg" color={verdict(a).color} data-testid="routing-result-valid" data-valid={String(a.valid)} data-status={a.status}>
            {verdict(a).label}
          </Badge>
        </Group>
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
          <IdWithCopy id={a.id} what="check id" maxWidth={200} />
          <Text size="xs" c="dimmed">
          {a.environment} · {formatTime(a.createdAt)}
        </Text>
        </Group>
      </Group>
      <Group gap="xs">
        <Flag label="Directory match" value={a.directoryMatch} />
        <Text size="sm" c="dimmed" data-testid="routing-result-directory">
          {directoryText(a)}
        </Text>
      </Group>
      {a.error && (
        <Alert color="orange" title={<Code>{a.error.code}</Code>} data-testid="routing-result-error">
          {a.error.message}
          {a.error.code === 'TEST_NUMBER_NOT_FOUND' && ' In sandbox only the documented test identifiers are known; see the sandbox guide or use e.g. DEUTDEFF, 021000021.'}
        </Alert>
      )}
      {a.reasons && a.reasons.length > 0 && (
        <Alert
          color={a.error?.code === 'INCONCLUSIVE' ? 'gray' : 'red'}
          variant="light"
          title={a.error?.code === 'INCONCLUSIVE' ? 'Why it could not be checked' : 'Why it is not valid'}
          data-testid="routing-result-reasons"
        >
          <List size="sm">
            {a.reasons.map((r) => (
              <List.Item key={r}>{r}</List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}

function ResultView({ answer }: { answer: Answer }) {
  if (answer.kind === 'bic') {
    const a = answer.a;
    return (
      <Stack>
        <ResultHeader a={a} title={a.bic} />
        <SimpleGrid cols={{ base: 2, md: 4 }} data-testid="bic-parts">
          <Field label="Institution (4)">{a.institutionCode && <Code>{a.institutionCode}</Code>}</Field>
          <Field label="Country (2)">{a.countryCode && <Code>{a.countryCode}</Code>}</Field>
          <Field label="Location (2)">{a.locationCode && <Code>{a.locationCode}</Code>}</Field>
          <Field label="Branch (3)">{a.branchCode && <Code>{a.branchCode}</Code>}</Field>
          <Field label="Bank">{a.bankName}</Field>
          <Field label="City">{a.city}</Field>
        </SimpleGrid>
        <Group gap="xs">
          {/* Only a known, valid BIC has an office to speak of: an unknown one is never "Primary office: yes". */}
          <Flag label="Primary office" value={a.valid && a.directoryMatch !== false ? a.isPrimaryOffice : null} />
          <Flag label="Test BIC" value={a.isTestBic} />
        </Group>
      </Stack>
    );
  }
  if (answer.kind === 'aba') {
    const a = answer.a;
    return (
      <Stack>
        <ResultHeader a={a} title={a.routingNumber} />
        <SimpleGrid cols={{ base: 2, md: 3 }} data-testid="aba-parts">
          <Field label="Federal Reserve routing symbol (1-4)">
            <Code>{a.routingNumber.slice(0, 4) || '—'}</Code>
          </Field>
          <Field label="ABA institution identifier (5-8)">
            <Code>{a.routingNumber.slice(4, 8) || '—'}</Code>
          </Field>
          <Field label="Check digit (9)">
            <Code>{a.routingNumber.slice(8, 9) || '—'}</Code>
          </Field>
          <Field label="Federal Reserve district">{a.federalReserveDistrict}</Field>
          <Field label="Bank">{a.bankName}</Field>
        </SimpleGrid>
        <Group gap="xs">
          <Flag label="Checksum (3-7-1)" value={a.checksumValid} />
        </Group>
      </Stack>
    );
  }
  const a = answer.a;
  return (
    <Stack>
      <ResultHeader a={a} title={`${a.bic}${a.currency ? ` · ${a.currency}` : ''}`} />
      <Group gap="lg">
        <Field label="Bank">{a.bankName}</Field>
        <Field label="Charge">
          {a.charge.status === 'not_charged' ? 'not charged' : `${formatMoney(a.charge.amount, a.charge.currency)} (${a.charge.status})`}
        </Field>
      </Group>
      {a.correspondents.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="correspondents-empty">
          No correspondents{a.currency ? ` in ${a.currency}` : ''}. Try without a currency to see every relationship.
        </Text>
      ) : (
        <Table striped withTableBorder data-testid="correspondents-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>BIC</Table.Th>
              <Table.Th>Bank</Table.Th>
              <Table.Th>Country</Table.Th>
              <Table.Th>Currency</Table.Th>
              <Table.Th>Confidence</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {a.correspondents.map((c) => (
              <Table.Tr key={`${c.bic}-${c.currency}`}>
                <Table.Td>
                  <Code>{c.bic}</Code>
                </Table.Td>
                <Table.Td>{c.bankName ?? '—'}</Table.Td>
                <Table.Td>{c.country}</Table.Td>
                <Table.Td>{c.currency}</Table.Td>
                <Table.Td>{Math.round(c.confidence * 100)}%</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

export function CheckTab() {
  const environment = useConsole((s) => s.environment);
  const [kind, setKind] = useState<Kind>('bic');
  const [bic, setBic] = useState('');
  const [routingNumber, setRoutingNumber] = useState('');
  const [currency, setCurrency] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    // A result left on screen next to edited inputs would read as the answer for them (as on Verify): the old one
    // goes as soon as another check is asked for, whether it then runs, is refused here or fails.
    setAnswer(null);
    const id = (kind === 'aba' ? routingNumber : bic).trim();
    if (!id) return setError(kind === 'aba' ? 'Enter a 9-digit routing number.' : 'Enter a BIC (8 or 11 characters).');
    // Past the service's bound (IDENTIFIER_MAX) nothing is checked; say what the identifier should be, not zod's words.
    if (id.length > IDENTIFIER_MAX) {
      return setError(
        kind === 'aba'
          ? `A routing number has 9 digits; this has ${id.length} characters.`
          : `A BIC has 8 or 11 characters; this has ${id.length}.`,
      );
    }
    const cur = currency.trim().toUpperCase();
    if (kind === 'correspondents' && cur && !isCurrencyCode(cur)) return setError('Currency must be a 3-letter ISO 4217 code, e.g. USD.');
    setBusy(true);
    try {
      if (kind === 'bic') setAnswer({ kind, a: await call('routing:bic', { environment, request: { bic: id } }) });
      else if (kind === 'aba') setAnswer({ kind, a: await call('routing:routingNumber', { environment, request: { routingNumber: id } }) });
      else setAnswer({ kind, a: await call('routing:correspondents', { environment, request: { bic: id, ...(cur ? { currency: cur } : {}) } }) });
    } catch (err) {
      notifyError(err, 'The check could not run');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack>
      <Paper withBorder p="md" radius="sm">
        <form onSubmit={(e) => void submit(e)} noValidate data-testid="routing-check-form">
          <Stack>
            <SegmentedControl
              data-testid="routing-check-kind"
              value={kind}
              onChange={(v) => {
                setKind(v === 'aba' ? 'aba' : v === 'correspondents' ? 'correspondents' : 'bic');
                setError(undefined);
                setAnswer(null);
              }}
              data={[
                { value: 'bic', label: 'BIC / SWIFT' },
                { value: 'aba', label: 'ABA routing number' },
                { value: 'correspondents', label: 'Correspondents' },
              ]}
            />
            <Group align="flex-start">
              {kind === 'aba' ? (
                <TextInput
                  data-testid="routing-number-input"
                  label="Routing number"
                  placeholder="021000021"
                  value={routingNumber}
                  onChange={(e) => setRoutingNumber(e.currentTarget.value)}
                  error={error}
                  w={260}
                />
              ) : (
                <TextInput
                  data-testid="bic-input"
                  label="BIC"
                  placeholder="DEUTDEFF"
                  value={bic}
                  onChange={(e) => setBic(e.currentTarget.value)}
                  error={error}
                  w={260}
                />
              )}
              {kind === 'correspondents' && (
                <TextInput
                  data-testid="currency-input"
                  label="Currency (optional)"
                  placeholder="USD"
                  maxLength={3}
                  value={currency}
                  onChange={(e) => setCurrency(e.currentTarget.value)}
                  w={150}
                />
              )}
              <Button type="submit" mt={25} loading={busy} data-testid="routing-check-submit">
                Check
              </Button>
            </Group>
            <Text size="xs" c="dimmed">
              {environment === 'sandbox'
                ? 'Sandbox answers from the documented test identifiers (e.g. DEUTDEFF, CHASUS33, 021000021).'
                : 'Live answers from the directory you imported under Directory; without one, only the structure is judged.'}
              {kind === 'correspondents' && environment === 'live' ? ' A correspondents check is charged in live.' : ''}
            </Text>
            {kind === 'correspondents' && environment === 'live' && <LivePrice service="correspondents" />}
          </Stack>
        </form>
      </Paper>
      {answer ? (
        <Paper withBorder p="md" radius="sm" data-testid="routing-result">
          <ResultView answer={answer} />
        </Paper>
      ) : (
        <Text size="sm" c="dimmed" data-testid="routing-result-empty">
          Enter an identifier and press Check: the result shows its parts, flags, the bank and whether the directory knows it.
        </Text>
      )}
    </Stack>
  );
}
