// A whole-window message for states where the console cannot be used (spent link, service unreachable).
import { Button, Center, Code, Paper, Stack, Text, Title } from '@mantine/core';

function withCode(message: string) {
  // Backticked words are commands the user should type; show them as code.
  return message.split(/(`[^`]+`)/).map((part, i) =>
    part.startsWith('`') && part.endsWith('`') ? <Code key={i}>{part.slice(1, -1)}</Code> : <span key={i}>{part}</span>,
  );
}

export function FullPageMessage(props: { title: string; message: string; hint?: string; onRetry?: () => void }) {
  return (
    <Center h="100vh" p="md" data-testid="full-page-message">
      <Paper withBorder shadow="sm" p="xl" maw={560}>
        <Stack>
          <Title order={2}>{props.title}</Title>
          <Text>{withCode(props.message)}</Text>
          {props.hint && <Text c="dimmed">{props.hint}</Text>}
          {props.onRetry && (
            <Button onClick={props.onRetry} w="fit-content">
              Retry
            </Button>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
