// The team server's sign-in page (docs/team-server.md): email and password of a console user. Shown instead of the
// console when nobody is signed in, and again after signing out or when the session ends.
import { useState, type FormEvent } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconLogin } from '@tabler/icons-react';
import { ConsoleError, signIn } from '../client/bridge';

export function SignInPage({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(email.trim(), password);
      setPassword('');
      onSignedIn();
    } catch (err) {
      setError(err instanceof ConsoleError ? err.message : 'The sign-in could not be sent. Check that the service is running.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Center h="100vh" p="md" data-testid="sign-in-page">
      <Paper withBorder shadow="sm" p="xl" w={420} maw="100%">
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <div>
              <Title order={1} fz="h2">
                Verification Console
              </Title>
              <Text c="dimmed" size="sm">
                Sign in with your console account.
              </Text>
            </div>
            {notice && !error && (
              <Alert color="blue" variant="light" data-testid="sign-in-notice">
                {notice}
              </Alert>
            )}
            {error && (
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} data-testid="sign-in-error" role="alert">
                {error}
              </Alert>
            )}
            <TextInput label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} data-testid="sign-in-email" data-autofocus autoFocus />
            <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} data-testid="sign-in-password" />
            <Button type="submit" loading={busy} leftSection={<IconLogin size={16} />} data-testid="sign-in-submit">
              Sign in
            </Button>
            <Text size="xs" c="dimmed">
              Accounts are created by an owner or admin (Settings → Users), or on the server with <code>vconsole users create</code>.
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
