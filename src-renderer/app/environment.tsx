// Everything that shows or changes the environment: the header's one badge and its switch, the label, and the
// confirmation asked before entering live, where every check reaches a real provider and is charged. With the
// colour frame around the window (console-shell.tsx) this is the only place a screen names its environment.
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { Badge, Button, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Environment } from '../../src-shared/schemas/common';
import { EnvironmentSchema } from '../../src-shared/schemas/common';
import { useConsole } from './store';
import { ENV_COLOR } from './theme';

export const ENV_LABEL: Record<Environment, string> = { sandbox: 'SANDBOX', live: 'LIVE' };

export function EnvironmentSwitch() {
  const environment = useConsole((s) => s.environment);
  const requestEnvironment = useConsole((s) => s.requestEnvironment);
  const color = ENV_COLOR[environment];
  return (
    <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
      <Badge data-testid="env-badge" data-environment={environment} color={color} variant="filled" size="lg" leftSection={environment === 'live' ? <IconAlertTriangle size={14} /> : undefined}>
        {ENV_LABEL[environment]}
      </Badge>
      <SegmentedControl
        data-testid="env-switch"
        aria-label="Environment"
        size="xs"
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

/**
 * Opens the address the store holds for after a switch (store.openIn) once the environment is the one it needs.
 * Rendered after the pages, so its navigation comes after a page's own reaction to the switch (the Webhooks page
 * leaves a webhook of the other environment) and wins.
 */
export function OpenAfterSwitch() {
  const pending = useConsole((s) => s.pendingOpen);
  const environment = useConsole((s) => s.environment);
  const clear = useConsole((s) => s.clearPendingOpen);
  const navigate = useNavigate();
  useEffect(() => {
    if (!pending || pending.environment !== environment) return;
    clear();
    void navigate(pending.path, pending.replace ? { replace: true } : undefined);
  }, [pending, environment, clear, navigate]);
  return null;
}
