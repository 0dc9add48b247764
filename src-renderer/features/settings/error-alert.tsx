// An inline failure box for the Settings page: the error body's message, its field details and its action hint.
import { Alert, List, Text } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import { ConsoleError } from '../../client/bridge';

export function ErrorAlert({ error, title, testId }: { error: unknown; title: string; testId?: string }) {
  if (!error) return null;
  const err = error instanceof ConsoleError ? error : null;
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={title} data-testid={testId}>
      <Text size="sm">{err ? err.message : 'The console hit an unexpected problem.'}</Text>
      {err && err.details.length > 0 && (
        <List size="sm" mt={4}>
          {err.details.map((d) => (
            <List.Item key={`${d.field}:${d.message}`}>
              <Text span ff="monospace" size="sm">
                {d.field}
              </Text>
              : {d.message}
            </List.Item>
          ))}
        </List>
      )}
      <Text size="sm" c="dimmed" mt={4}>
        {err?.hint ?? (err ? 'Correct the value and save again.' : 'Retry; if it keeps happening, restart the console.')}
      </Text>
    </Alert>
  );
}
