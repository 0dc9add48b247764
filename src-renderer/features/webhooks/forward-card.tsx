// The "forward to a local receiver" developer setting (decisions §7): every delivery is also sent to an
// http://localhost address, so a receiver under development sees real signed events.
import { useEffect, useState } from 'react';
import { Badge, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { call, ConsoleError } from '../../client/bridge';
import { notifyError, notifySuccess } from '../../app/notify';
import { localReceiverProblem } from './timeline';
import { useCan } from '../../app/app-info';

export function ForwardCard({ onChange }: { onChange?: (url: string | null) => void }) {
  const mayChange = useCan()('webhooks:setForward');
  const [current, setCurrent] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    call('webhooks:getForward', {})
      .then((s) => {
        setCurrent(s.url);
        // What the user typed before the setting came back stays (it was wiped: a quick paste was lost).
        setDraft((d) => (d.trim() === '' ? (s.url ?? '') : d));
        onChange?.(s.url);
      })
      .catch((e: unknown) => notifyError(e, 'Could not read the forwarding setting'));
  }, [onChange]);

  async function save(url: string | null) {
    const problem = url === null ? null : localReceiverProblem(url);
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const s = await call('webhooks:setForward', { url: url === null ? null : url.trim() });
      setCurrent(s.url);
      setDraft(s.url ?? '');
      onChange?.(s.url);
      notifySuccess(s.url ? `Deliveries are now also forwarded to ${s.url}.` : 'Forwarding to a local receiver is off.');
    } catch (e) {
      if (e instanceof ConsoleError) setError(e.details[0]?.message ?? e.message);
      notifyError(e, 'Could not change forwarding');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="md" radius="sm" data-testid="forward-card">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={5}>Forward to local receiver</Title>
          <Badge color={current ? 'blue' : 'gray'} variant="light" data-testid="forward-state">
            {current ? 'On' : 'Off'}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          A developer option: every delivery is also sent, signed, to a receiver running on this machine. The webhook endpoints are not
          affected. {current ? <>Now forwarding to <Code>{current}</Code>.</> : null}
        </Text>
        <Group align="flex-start" gap="sm">
          <TextInput
            data-testid="forward-url-input"
            placeholder="http://localhost:3000/hooks"
            value={draft}
            onChange={(e) => {
              setDraft(e.currentTarget.value);
              // The error was about the URL as it was: editing it clears it (it is checked again on Turn on).
              setError(undefined);
            }}
            error={error}
            readOnly={!mayChange}
            description={mayChange ? undefined : 'Owners and admins change forwarding.'}
            style={{ flex: 1 }}
            aria-label="Local receiver URL"
          />
          <Button data-testid="forward-save" loading={busy} disabled={!mayChange || draft.trim() === '' || draft.trim() === current} onClick={() => void save(draft)}>
            {current ? 'Change' : 'Turn on'}
          </Button>
          <Button data-testid="forward-off" variant="default" disabled={!mayChange || !current || busy} onClick={() => void save(null)}>
            Turn off
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
