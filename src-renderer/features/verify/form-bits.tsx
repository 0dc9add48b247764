// Small pieces the new verify tabs share: the format warning under an input, the general error, the submit row.
import type { ReactNode } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

export function FormatWarning({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <Text size="xs" c="orange.8" mt={4} data-testid="format-warning">
      {text} Submitting records it as a failed verification (not charged).
    </Text>
  );
}

export function GeneralError({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <Alert color="red" icon={<IconAlertTriangle size={16} />} data-testid="form-general-error">
      {text}
    </Alert>
  );
}

export function SubmitRow({ environment, busy, label, icon, testId }: { environment: string; busy: boolean; label: string; icon: ReactNode; testId: string }) {
  return (
    <Group justify="space-between" mt="xs">
      <Text size="xs" c="dimmed">
        Runs in the <b>{environment}</b> environment{environment === 'live' ? ' and is charged to the wallet' : ''}.
      </Text>
      <Button type="submit" data-testid={testId} loading={busy} leftSection={icon}>
        {label}
      </Button>
    </Group>
  );
}
