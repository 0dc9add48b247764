// The landing page: what this installation is and where to go next.
import { Button, Card, Code, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { AppInfo } from '../../src-shared/channels';
import { useConsole } from './store';

export function DashboardPage({ info }: { info: AppInfo }) {
  const setSection = useConsole((s) => s.setSection);
  return (
    <Stack data-testid="dashboard">
      <Title order={2}>Dashboard</Title>
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <Card withBorder>
          <Text fw={600}>Verify an account</Text>
          <Text size="sm" c="dimmed" mb="sm">
            Check a bank account in any supported corridor.
          </Text>
          <Button variant="light" onClick={() => setSection('verify')}>
            Open Verify
          </Button>
        </Card>
        <Card withBorder>
          <Text fw={600}>API keys</Text>
          <Text size="sm" c="dimmed" mb="sm">
            Create keys for your integration, one per environment.
          </Text>
          <Button variant="light" onClick={() => setSection('keys')}>
            Manage keys
          </Button>
        </Card>
        <Card withBorder>
          <Text fw={600}>History</Text>
          <Text size="sm" c="dimmed" mb="sm">
            Every verification made through the API or this console.
          </Text>
          <Button variant="light" onClick={() => setSection('history')}>
            Open History
          </Button>
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Stack gap={4}>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              Data folder
            </Text>
            <Code>{info.dataDir}</Code>
          </Group>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              Opened through
            </Text>
            <Text size="sm">{info.door === 'electron' ? 'the desktop app' : 'the web console (vconsole serve)'}</Text>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
