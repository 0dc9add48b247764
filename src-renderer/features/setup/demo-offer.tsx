// First run, last step (issue 23, docs/demo.md): "Giving a demo?" — loads a month of sandbox activity in one click,
// so the dashboard opens on a story instead of empty charts. Settings › Demo data removes it.
import { useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconPresentation } from '@tabler/icons-react';
import { call } from '../../client/bridge';
import { ErrorAlert } from '../settings/error-alert';

export function DemoOffer({ onLoaded }: { onLoaded?: () => void }) {
  const [state, setState] = useState<'idle' | 'loading' | { checks: number }>('idle');
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    setState('loading');
    setError(null);
    try {
      const r = await call('demo:load', { days: 30 });
      setState({ checks: r.checks });
      onLoaded?.();
    } catch (e) {
      setError(e);
      setState('idle');
    }
  };
  return (
    <Alert color="grape" variant="light" icon={<IconPresentation size={18} />} title="Giving a demo?" data-testid="demo-offer">
      {typeof state === 'object' ? (
        <Text size="sm" data-testid="demo-offer-done">
          Loaded {state.checks} sandbox checks over the last 30 days, with a webhook, a checked batch CSV, keys and team members. Remove them in Settings › Demo data.
        </Text>
      ) : (
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm">Load a month of sandbox activity so the dashboard, History and Webhooks tell the story. One click removes it later.</Text>
          <Button variant="light" color="grape" loading={state === 'loading'} onClick={() => void load()} data-testid="demo-offer-load">
            Load demo data
          </Button>
        </Group>
      )}
      <ErrorAlert error={error} title="Demo data could not be loaded" />
    </Alert>
  );
}
