// First run: creates the organization and its owner, then shows the two initial API keys exactly once.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
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
    if (!BootstrapInputSchema.shape.email.safeParse(email).success) next.email = 'Enter a valid email address.';
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

  if (result) {
    return (
      <Center mih="100vh" p="md">
        <Paper withBorder shadow="sm" p="xl" w={640} data-testid="setup-keys">
          <Stack>
            <Title order={2}>Your API keys</Title>
            <Text>
              The organization is ready and {result.owner.email} is its owner. Here are its first two API keys, one per
              environment.
            </Text>
            <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="You will not see these again">
              {ONCE_ONLY_WARNING_BOTH}
            </Alert>
            <SecretKey label="Sandbox key (test data, never charged)" value={result.keys.sandbox.key} testId="setup-key-sandbox" />
            <SecretKey label="Live key (real checks, charged)" value={result.keys.live.key} testId="setup-key-live" />
            <Button data-testid="setup-continue" onClick={onDone} mt="sm">
              I have saved both keys — continue
            </Button>
          </Stack>
        </Paper>
      </Center>
    );
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={460}>
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack>
            <Title order={2}>Set up Verification Console</Title>
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
      </Paper>
    </Center>
  );
}
