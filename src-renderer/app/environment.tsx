// Everything that shows or changes the environment: the header switch and badge, the label, and the confirmation
// asked before entering live, where every check reaches a real provider and is charged.
import { Badge, Button, Group, Modal, SegmentedControl, Stack, Text, type MantineSize } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Environment } from '../../src-shared/schemas/common';
import { EnvironmentSchema } from '../../src-shared/schemas/common';
import { useConsole } from './store';
import { ENV_COLOR } from './theme';

export const ENV_LABEL: Record<Environment, string> = { sandbox: 'SANDBOX', live: 'LIVE' };

export function EnvBadge({ size = 'sm', testId }: { size?: MantineSize; testId?: string }) {
  const environment = useConsole((s) => s.environment);
  return (
    <Badge data-testid={testId} data-environment={environment} color={ENV_COLOR[environment]} variant="filled" size={size} leftSection={environment === 'live' ? <IconAlertTriangle size={12} /> : undefined}>
      {ENV_LABEL[environment]}
    </Badge>
  );
}

export function EnvironmentSwitch() {
  const environment = useConsole((s) => s.environment);
  const requestEnvironment = useConsole((s) => s.requestEnvironment);
  const color = ENV_COLOR[environment];
  return (
    <Group gap="xs">
      <SegmentedControl
        data-testid="env-switch"
        aria-label="Environment"
        size="sm"
        color={color}
        value={environment}
        onChange={(v) => {
          const parsed = EnvironmentSchema.safeParse(v);
          if (parsed.success) requestEnvironment(parsed.data);
        }}
        data={[
          { value: 'sandbox', label: 'Sandbox' },
          { value: 'live', label: 'Live' },
        ]}
      />
      <Badge data-testid="env-badge" color={color} variant="filled" size="lg" leftSection={environment === 'live' ? <IconAlertTriangle size={14} /> : undefined}>
        {environment === 'live' ? 'LIVE — real checks, charged' : 'Sandbox — test data'}
      </Badge>
    </Group>
  );
}

export function LiveConfirmModal() {
  const open = useConsole((s) => s.confirmingLive);
  const resolveLive = useConsole((s) => s.resolveLive);
  return (
    <Modal opened={open} onClose={() => resolveLive(false)} title="Switch to live?" centered data-testid="live-confirm">
      <Stack>
        <Text size="sm">
          In live, every check reaches a real provider and an enabled, priced service is charged to the wallet. Webhooks,
          keys and history shown are the live ones.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => resolveLive(false)} data-testid="live-cancel">
            Stay in sandbox
          </Button>
          <Button color="red" leftSection={<IconAlertTriangle size={16} />} onClick={() => resolveLive(true)} data-testid="live-confirm-button">
            Switch to live
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
