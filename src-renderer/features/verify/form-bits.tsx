// Small pieces the verify tabs share: the two-column form layout, the format warning under an input, the general
// error, the submit row (with the price of the check in live).
import { useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Button, Grid, Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { LivePrice } from '../wallet/live-cost';

export function FormatWarning({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <Text size="xs" c="var(--mantine-color-orange-light-color)" mt={4} data-testid="format-warning">
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

/** Shown only where the kind and country allow asynchronous checks. */
export function AsyncSwitch({ testId, checked, onChange, error }: { testId: string; checked: boolean; onChange: (checked: boolean) => void; error: string | undefined }) {
  return (
    <Switch
      data-testid={testId}
      label="Run asynchronously"
      description="Answer at once with a pending record; the result arrives by webhook or polling."
      checked={checked}
      onChange={(e) => onChange(e.currentTarget.checked)}
      error={error}
    />
  );
}

/**
 * `service`: the billed service key of the request as typed (e.g. account:NG); in live its price is shown beside
 * the button. `busy` going back to false re-reads the wallet, so the balance shown follows each charge.
 */
export function SubmitRow({ environment, busy, label, icon, testId, service = null }: { environment: string; busy: boolean; label: string; icon: ReactNode; testId: string; service?: string | null }) {
  const [submissions, setSubmissions] = useState(0);
  const [wasBusy, setWasBusy] = useState(busy);
  if (wasBusy !== busy) {
    setWasBusy(busy);
    if (!busy) setSubmissions((n) => n + 1);
  }
  return (
    // Sticky at the window's bottom edge: however many fields (and errors) a corridor shows, the primary action and
    // the price stay on screen (issue 13 §4: visible at 1400×900 with every option active).
    <Stack gap={4} mt="xs" py={6} style={{ position: 'sticky', bottom: 0, zIndex: 2, background: 'var(--mantine-color-body)' }} data-testid="submit-row">
      <Group justify="space-between">
        <Text size="xs" c="dimmed">
          Runs in the <b>{environment}</b> environment{environment === 'live' ? ' and is charged to the wallet' : ''}.
        </Text>
        <Button type="submit" data-testid={testId} loading={busy} leftSection={icon}>
          {label}
        </Button>
      </Group>
      {environment === 'live' && <LivePrice service={service} reloadKey={submissions} />}
    </Stack>
  );
}

/** The layout of every verify tab: the form on the left under its title and fixture picker, the result on the right. */
export function VerifyFormLayout({
  title,
  picker,
  onSubmit,
  formTestId,
  result,
  children,
}: {
  title: string;
  picker: ReactNode;
  onSubmit: (e: FormEvent) => Promise<void>;
  formTestId?: string;
  result: ReactNode;
  children: ReactNode;
}) {
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 6 }}>
        <Paper withBorder p="md">
          <form onSubmit={(e) => void onSubmit(e)} noValidate data-testid={formTestId}>
            <Stack gap="sm">
              <Group justify="space-between">
                <Text fw={600}>{title}</Text>
                {picker}
              </Group>
              {children}
            </Stack>
          </form>
        </Paper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 6 }}>{result}</Grid.Col>
    </Grid>
  );
}
