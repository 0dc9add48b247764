// The right-hand column of the phone, identity, face and address tabs: the shared result panel, then the fields
// these kinds return (names, date of birth, number, address) which the bank-account panel has no place for.
// The placeholder shown before any result is shared with the bank-account tab.
import { Alert, Code, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconBan } from '@tabler/icons-react';
import type { Refusal, Submission } from './use-submission';
import { VerificationResult } from './verification-result';

function Item({ label, value, testId }: { label: string; value: string | undefined; testId: string }) {
  if (value === undefined || value === '') return null;
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={500} data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}

function addressLines(a: Record<string, unknown>): string[] {
  const order = ['addressLine1', 'addressLine2', 'city', 'region', 'postalCode', 'country'];
  const keys = [...order.filter((k) => k in a), ...Object.keys(a).filter((k) => !order.includes(k))];
  return keys.map((k) => a[k]).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String);
}

const DEFAULT_PLACEHOLDER = 'The result appears here. Pick a sandbox fixture to try a known answer.';

export function ResultPlaceholder({ text = DEFAULT_PLACEHOLDER }: { text?: string }) {
  return (
    <Paper withBorder p="md" c="dimmed" data-testid="verification-placeholder">
      <Text size="sm">{text}</Text>
    </Paper>
  );
}

/** A refused request in the result column, where the answer would have been: nothing was recorded or charged. */
export function RefusalPanel({ refusal }: { refusal: Refusal }) {
  return (
    <Alert color="red" variant="light" icon={<IconBan size={18} />} title="Not run: the service refused this request" data-testid="verification-refused" data-code={refusal.code}>
      <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
        {refusal.text}
      </Text>
      <Text size="xs" c="dimmed" mt={4}>
        {refusal.code} · nothing was recorded or charged.
      </Text>
    </Alert>
  );
}

export function ResultPane({ submission, placeholder = DEFAULT_PLACEHOLDER }: { submission: Submission; placeholder?: string }) {
  const r = submission.result;
  if (!r && submission.refusal) return <RefusalPanel refusal={submission.refusal} />;
  if (!r) return <ResultPlaceholder text={placeholder} />;
  const hasDetails = [r.fullName, r.firstName, r.middleName, r.lastName, r.dateOfBirth, r.phoneNumber, r.networkCode, r.verificationType].some(Boolean) || r.address;
  return (
    <Stack gap="sm">
      <VerificationResult record={r} onPoll={() => void submission.poll()} polling={submission.polling} />
      {hasDetails && (
        <Paper withBorder p="md" data-testid="verification-details">
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
            <Item label="Full name" value={r.fullName} testId="result-full-name" />
            <Item label="First name" value={r.firstName} testId="result-first-name" />
            <Item label="Middle name" value={r.middleName} testId="result-middle-name" />
            <Item label="Last name" value={r.lastName} testId="result-last-name" />
            <Item label="Date of birth" value={r.dateOfBirth} testId="result-date-of-birth" />
            <Item label="Phone number" value={r.phoneNumber} testId="result-phone-number" />
            <Item label="Network" value={r.networkCode} testId="result-network-code" />
            {r.verificationType && (
              <Stack gap={0}>
                <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                  Verification type
                </Text>
                <Code>{r.verificationType}</Code>
              </Stack>
            )}
          </SimpleGrid>
          {r.address && (
            <Stack gap={0} mt="sm" data-testid="result-address">
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                Address (as the provider standardised it)
              </Text>
              {addressLines(r.address).map((l, i) => (
                <Text key={i} size="sm">
                  {l}
                </Text>
              ))}
            </Stack>
          )}
        </Paper>
      )}
    </Stack>
  );
}
