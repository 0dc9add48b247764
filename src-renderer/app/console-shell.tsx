// The app frame: header (product, environment switch, API base URL, developer-option warnings), the section
// navigation and the current page.
import type { ReactNode } from 'react';
import { ActionIcon, Alert, AppShell, Badge, Code, CopyButton, Group, NavLink, SegmentedControl, Stack, Text, Title, Tooltip } from '@mantine/core';
import {
  IconAlertTriangle,
  IconBuildingBank,
  IconCheck,
  IconCopy,
  IconGauge,
  IconHistory,
  IconKey,
  IconRoute,
  IconSettings,
  IconWallet,
  IconWebhook,
} from '@tabler/icons-react';
import type { AppInfo } from '../../src-shared/channels';
import { EnvironmentSchema } from '../../src-shared/schemas/common';
import { HistoryPage } from '../features/history/history-page';
import { KeysPage } from '../features/keys/keys-page';
import { RoutingPage } from '../features/routing/routing-page';
import { VerifyPage } from '../features/verify/verify-page';
import { WalletPage } from '../features/wallet/wallet-page';
import { WebhooksPage } from '../features/webhooks/webhooks-page';
import { DashboardPage } from './dashboard-page';
import { ComingLater } from './coming-later';
import { useConsole, type Section } from './store';
import { ENV_COLOR } from './theme';

const NAV: { section: Section; label: string; icon: ReactNode }[] = [
  { section: 'dashboard', label: 'Dashboard', icon: <IconGauge size={18} /> },
  { section: 'verify', label: 'Verify', icon: <IconBuildingBank size={18} /> },
  { section: 'history', label: 'History', icon: <IconHistory size={18} /> },
  { section: 'keys', label: 'API keys', icon: <IconKey size={18} /> },
  { section: 'webhooks', label: 'Webhooks', icon: <IconWebhook size={18} /> },
  { section: 'routing', label: 'Routing', icon: <IconRoute size={18} /> },
  { section: 'wallet', label: 'Wallet', icon: <IconWallet size={18} /> },
  { section: 'settings', label: 'Settings', icon: <IconSettings size={18} /> },
];

function Page({ section, info }: { section: Section; info: AppInfo }) {
  switch (section) {
    case 'dashboard':
      return <DashboardPage info={info} />;
    case 'verify':
      return <VerifyPage />;
    case 'history':
      return <HistoryPage />;
    case 'keys':
      return <KeysPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'routing':
      return <RoutingPage />;
    case 'wallet':
      return <WalletPage />;
    default:
      return <ComingLater title={NAV.find((n) => n.section === section)?.label ?? section} />;
  }
}

function EnvironmentSwitch() {
  const environment = useConsole((s) => s.environment);
  const setEnvironment = useConsole((s) => s.setEnvironment);
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
          if (parsed.success) setEnvironment(parsed.data);
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

function ApiBaseUrl({ url }: { url: string | null }) {
  if (!url) return <Text size="sm" c="dimmed">API not listening</Text>;
  return (
    <Group gap={4} wrap="nowrap">
      <Text size="sm" c="dimmed" visibleFrom="md">
        API
      </Text>
      <Code data-testid="api-base-url">{url}</Code>
      <CopyButton value={url}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy API base URL'} withArrow>
            <ActionIcon variant="subtle" color={copied ? 'green' : 'gray'} onClick={copy} aria-label="Copy API base URL">
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

export function ConsoleShell({ info }: { info: AppInfo }) {
  const section = useConsole((s) => s.section);
  const setSection = useConsole((s) => s.setSection);
  const environment = useConsole((s) => s.environment);
  const accent = `var(--mantine-color-${ENV_COLOR[environment]}-6)`;
  const headerHeight = 64;

  return (
    <AppShell header={{ height: headerHeight }} navbar={{ width: 220, breakpoint: 'xs' }} padding="lg" data-environment={environment}>
      <AppShell.Header style={{ borderTop: `5px solid ${accent}` }}>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Title order={4} style={{ whiteSpace: 'nowrap' }}>
              Verification Console
            </Title>
            <Text size="xs" c="dimmed">
              v{info.version}
            </Text>
          </Group>
          <EnvironmentSwitch />
          <ApiBaseUrl url={info.apiBaseUrl} />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        {NAV.map((n) => (
          <NavLink
            key={n.section}
            data-testid={`nav-${n.section}`}
            label={n.label}
            leftSection={n.icon}
            active={section === n.section}
            onClick={() => setSection(n.section)}
            variant="light"
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Stack gap="md">
          {info.warnings.map((w) => (
            <Alert key={w} color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Developer option active" data-testid="app-warning">
              {w}
            </Alert>
          ))}
          {environment === 'live' && (
            <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} data-testid="live-banner">
              You are in the live environment: verifications reach real providers and are charged to the wallet.
            </Alert>
          )}
          <Page section={section} info={info} />
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}
