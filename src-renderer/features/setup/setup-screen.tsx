// First run, as three steps: create the organization and its owner, show the two initial API keys exactly once,
// then a guided first check with a sandbox fixture before the dashboard.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert, Button, Center, Group, Paper, PasswordInput, Stack, Stepper, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconArrowRight, IconGauge } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { paths } from '../../app/routes';
import { FirstCheck } from './first-check';
import { DemoOffer } from './demo-offer';
import type { ChannelOutput } from '../../../src-shared/channels';
import { ConsoleError, call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { ONCE_ONLY_WARNING_BOTH, SecretKey } from '../keys/secret-key';
import { ORGANIZATION_NAME_MAX, PASSWORD_MIN } from '../../../src-shared/schemas/auth';
import { BootstrapInputSchema } from '../../../src-shared/channels';

type Fields = 'organizationName' | 'email' | 'password';

export function SetupScreen({ onDone }: { onDone: () => void }) {
  const [values, setValues] = useState<Record<Fields, string>>({ organizationName: '', email: '', password: '' });
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ChannelOutput<'setup:bootstrap'> | null>(null);
  const [checking, setChecking] = useState(false);
  const [checked, setChecked] = useState(false);
  // After "Load demo data" the dashboard opens on the story's month (its "today" may have no checks yet).
  const [demoLoaded, setDemoLoaded] = useState(false);
  const navigate = useNavigate();

  /** The value, change handler and error of one input. */
  function bind(field: Fields) {
    return {
      value: values[field],
      onChange: (e: ChangeEvent<HTMLInputElement>) => {
        const value = e.currentTarget.value;
        setValues((v) => ({ ...v, [field]: value }));
      },
      error: errors[field],
    };
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const { organizationName, email, password } = values;
    const next: Partial<Record<Fields, string>> = {};
    // The service's own schema decides; the form only words its verdicts.
    if (!email.trim()) next.email = 'Enter the owner’s email address.';
    else if (!BootstrapInputSchema.shape.email.safeParse(email).success) next.email = 'Enter a valid email address.';
    if (password.length < PASSWORD_MIN) next.password = `Use at least ${PASSWORD_MIN} characters.`;
    if (organizationName.trim().length > ORGANIZATION_NAME_MAX) next.organizationName = `Use at most ${ORGANIZATION_NAME_MAX} characters.`;
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    setBusy(true);
    try {
      const name = organizationName.trim();
      setResult(await call('setup:bootstrap', { email: email.trim(), password, ...(name ? { organizationName: name } : {}) }));
    } catch (err) {
      if (err instanceof ConsoleError && err.details.length > 0) {
        setErrors(Object.fromEntries(err.details.map((d) => [d.field, d.message])));
      }
      notifyError(err, 'Setup failed');
    } finally {
      setBusy(false);
    }
  }

  const accountForm = (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack>
        <Text c="dimmed" size="sm">
          Create the organization and its owner account. This runs once per installation.
        </Text>
        <TextInput data-testid="setup-org" label="Organization name" placeholder="Acme Payments" {...bind('organizationName')} />
        <TextInput data-testid="setup-email" label="Owner email" type="email" required autoComplete="username" {...bind('email')} />
        <PasswordInput data-testid="setup-password" label="Password" description="At least 8 characters." required autoComplete="new-password" {...bind('password')} />
        <Button type="submit" data-testid="setup-submit" loading={busy}>
          Create organization
        </Button>
      </Stack>
    </form>
  );

  // 3 = past the last step: every step shows its check mark once the first check has an answer.
  const step = !result ? 0 : checking ? (checked ? 3 : 2) : 1;

  function finish() {
    // The console opens on the dashboard whatever section a previous installation left in storage.
    void navigate(paths.dashboard(demoLoaded ? '30d' : undefined));
    onDone();
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={720} data-testid="setup" data-step={step}>
        <Title order={2} mb="md">
          Set up Verification Console
        </Title>
        {/* The stepper only tracks progress; each step's content sits below it, so the last step can show its
            check mark (active past the end) once the first check has run, without its content unmounting. */}
        <Stepper active={step} allowNextStepsSelect={false} size="sm" mb="md">
          <Stepper.Step label="Organization" description="You become its owner" />
          <Stepper.Step label="API keys" description="Shown once" />
          <Stepper.Step label="First check" description="A sandbox fixture" data-testid="setup-step-check" />
        </Stepper>
        {!result && accountForm}
        {result && !checking && (
          <Stack data-testid="setup-keys">
            <Text>
              The organization is ready and {result.owner.email} is its owner. Here are its first two API keys, one per
              environment.
            </Text>
            <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="You will not see these again">
              {ONCE_ONLY_WARNING_BOTH}
            </Alert>
            <SecretKey label="Sandbox key (test data, never charged)" value={result.keys.sandbox.key} testId="setup-key-sandbox" />
            <SecretKey label="Live key (real checks, charged)" value={result.keys.live.key} testId="setup-key-live" />
            <Group justify="space-between" mt="sm">
              <Button variant="subtle" data-testid="setup-continue" onClick={finish}>
                Skip the first check — open the console
              </Button>
              <Button data-testid="setup-next" rightSection={<IconArrowRight size={16} />} onClick={() => setChecking(true)}>
                I have saved both keys — try a first check
              </Button>
            </Group>
          </Stack>
        )}
        {checking && (
          <Stack>
            <FirstCheck onResult={() => setChecked(true)} />
            <DemoOffer onLoaded={() => setDemoLoaded(true)} />
            <Group justify="flex-end" mt="sm">
              <Button data-testid="setup-done" variant={checked ? 'filled' : 'light'} leftSection={<IconGauge size={16} />} onClick={finish}>
                Go to dashboard
              </Button>
            </Group>
          </Stack>
        )}
      </Paper>
    </Center>
  );
}
