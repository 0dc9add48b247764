// The outcome of one verification: status first (it decides what the rest means), then the error, then the
// fields the provider returned. A pending result can be polled.
import { Alert, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import type { VerificationRecord, VerificationType } from '../../../src-shared/schemas/verification';
import { IdWithCopy } from '../../app/copy-id';
import { formatMoney, STATUS_COLOR } from '../../app/format';

export type PartialRecord = Partial<VerificationRecord> & Pick<VerificationRecord, 'id' | 'status'>;

const HEADLINE: Record<VerificationRecord['status'], string> = {
  success: 'Verified',
  failed: 'Verification failed',
  error: 'No answer — retry later',
  pending: 'Pending — the answer is on its way',
};

/** What was checked, in the words of the explanation under the headline. */
const SUBJECT: Record<VerificationType, string> = {
  ACCOUNT_NUMBER: 'account',
  PHONE_NUMBER: 'phone number',
  KE_NATIONAL_ID: 'identity document',
  KE_DRIVERS_LICENSE: 'identity document',
  KE_PASSPORT: 'identity document',
  GH_CARD: 'identity document',
  GH_CARD_FACE: 'selfie',
  ADDRESS: 'address',
};

function explain(status: VerificationRecord['status'], type: VerificationType | undefined): string {
  const subject = type ? SUBJECT[type] : 'details';
  switch (status) {
    case 'success':
      return type === 'GH_CARD_FACE' ? 'The provider matched the selfie to the Ghana Card holder.' : `The provider confirmed the ${subject}.`;
    case 'failed':
      return `The ${subject} did not pass the check. This is a final answer for these details.`;
    case 'error':
      return 'No provider could give an answer in time. Nothing is final: submit again later.';
    case 'pending':
      return 'The check runs in the background. Poll for the result, or wait for the webhook.';
  }
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <div>{children}</div>
    </Stack>
  );
}

/** The verification id on one line with an ellipsis and a copy button (app/copy-id.tsx). */
export function CopyId({ id }: { id: string }) {
  return <IdWithCopy id={id} what="verification id" testId="verification-id" />;
}

/**
 * Where the answer came from, in words that are true for the environment: `source` stays as the interface defines
 * it ("live" = not from the cache), but in sandbox no provider is ever called — the answer is a fixture's.
 */
export function sourceText(record: PartialRecord): string {
  if (record.source === 'cache') return 'cache (recent answer reused)';
  if (record.environment === 'sandbox') return 'sandbox fixture answer (no provider called)';
  return 'live provider call';
}

export function VerificationResult({ record, onPoll, polling }: { record: PartialRecord; onPoll?: () => void; polling?: boolean }) {
  const color = STATUS_COLOR[record.status] ?? 'gray';
  return (
    <Paper withBorder p="md" data-testid="verification-result" data-status={record.status} style={{ borderLeft: `5px solid var(--mantine-color-${color}-6)` }}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Badge color={color} size="lg" variant="filled" data-testid="verification-status">
              {record.status}
            </Badge>
            <Text fw={700} size="lg" c={color}>
              {HEADLINE[record.status]}
            </Text>
            {record.source === 'cache' && (
              <Badge color="grape" variant="light" data-testid="served-from-cache">
                Served from cache
              </Badge>
            )}
          </Group>
          {record.status === 'pending' && onPoll && (
            <Button size="xs" variant="light" leftSection={<IconRefresh size={14} />} loading={polling} onClick={onPoll} data-testid="poll-result">
              Check again
            </Button>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          {explain(record.status, record.verificationType)}
        </Text>
        {record.error && (
          <Alert color={color} variant="light" title={<Code>{record.error.code}</Code>} data-testid="verification-error">
            {record.error.message}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
          {record.accountName !== undefined && (
            <Field label="Account name">
              <Text fw={600} data-testid="result-account-name">
                {record.accountName}
              </Text>
            </Field>
          )}
          {record.bankName !== undefined && <Field label="Bank">{record.bankName}</Field>}
          {record.checkType !== undefined && (
            <Field label="Check type">
              <Code>{record.checkType}</Code>
            </Field>
          )}
          {record.source !== undefined && (
            <Field label="Source">
              <Text span data-testid="result-source" data-source={record.source}>
                {sourceText(record)}
              </Text>
            </Field>
          )}
          <Field label="Verification id">
            <CopyId id={record.id} />
          </Field>
          {record.charge && (
            <Field label="Charge">
              {formatMoney(record.charge.amount, record.charge.currency)}{' '}
              <Badge size="xs" variant="outline" color={record.charge.status === 'charged' ? 'orange' : 'gray'}>
                {record.charge.status.replace('_', ' ')}
              </Badge>
            </Field>
          )}
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}
