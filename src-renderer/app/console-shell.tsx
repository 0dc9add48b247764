// The app frame: header (product, environment switch, API base URL, palette), the section navigation, the
// environment accent and label around every page, developer-option warnings, the palette and its shortcuts.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ActionIcon, Alert, AppShell, Button, Code, CopyButton, Group, Kbd, NavLink, Stack, Text, Title, Tooltip } from '@mantine/core';
import { spotlight } from '@mantine/spotlight';
import {
  IconAlertTriangle,
  IconShieldCheck,
  IconKeyboard,
  IconSearch,
  IconBuildingBank,
  IconCheck,
  IconCopy,
  IconGauge,
  IconHistory,
  IconKey,
  IconPlugConnected,
  IconRoute,
  IconSettings,
  IconWallet,
  IconWebhook,
} from '@tabler/icons-react';
import type { AppInfo } from '../../src-shared/channels';
import { HistoryPage } from '../features/history/history-page';
import { KeysPage } from '../features/keys/keys-page';
import { RoutingPage } from '../features/routing/routing-page';
import { VerifyPage } from '../features/verify/verify-page';
import { WalletPage } from '../features/wallet/wallet-page';
import { SettingsPage } from '../features/settings/settings-page';
import { WebhooksPage } from '../features/webhooks/webhooks-page';
import { ProvidersPage } from '../features/providers/providers-page';
import { CommandPalette } from '../features/palette/command-palette';
import { ShortcutsModal, useConsoleHotkeys } from '../features/palette/shortcuts-modal';
import { DashboardPage } from './dashboard-page';
import { ComingLater } from './coming-later';
import { ENV_LABEL, EnvBadge, EnvironmentSwitch, LiveConfirmModal } from './environment';
import { useConsole, type Section } from './store';
import { ENV_COLOR } from './theme';
import { StorageBanner } from './storage-banner';
import { AuditPage } from '../features/audit/audit-page';

/** Navigation order is also the Alt+1…9 order and the palette's page order. */
const NAV: { section: Section; label: string; icon: ReactNode }[] = [
  { section: 'dashboard', label: 'Dashboard', icon: <IconGauge size={18} /> },
  { section: 'verify', label: 'Verify', icon: <IconBuildingBank size={18} /> },
  { section: 'history', label: 'History', icon: <IconHistory size={18} /> },
  { section: 'keys', label: 'API keys', icon: <IconKey size={18} /> },
  { section: 'webhooks', label: 'Webhooks', icon: <IconWebhook size={18} /> },
  { section: 'routing', label: 'Routing', icon: <IconRoute size={18} /> },
  { section: 'wallet', label: 'Wallet', icon: <IconWallet size={18} /> },
  { section: 'providers', label: 'Providers', icon: <IconPlugConnected size={18} /> },
  { section: 'settings', label: 'Settings', icon: <IconSettings size={18} /> },
  { section: 'audit', label: 'Audit', icon: <IconShieldCheck size={18} /> },
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
    case 'providers':
      return <ProvidersPage />;
    case 'audit':
      return <AuditPage />;
    case 'settings':
      return <SettingsPage />;
    default:
      return <ComingLater title={NAV.find((n) => n.section === section)?.label ?? section} />;
  }
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

function PaletteButton() {
  return (
    <Button
      variant="default"
      size="xs"
      leftSection={<IconSearch size={14} />}
      rightSection={<Kbd size="xs">Ctrl K</Kbd>}
      onClick={() => spotlight.open()}
      data-testid="palette-open"
      visibleFrom="sm"
    >
      Search
    </Button>
  );
}

export function ConsoleShell({ info }: { info: AppInfo }) {
  const section = useConsole((s) => s.section);
  const setSection = useConsole((s) => s.setSection);
  const environment = useConsole((s) => s.environment);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const showShortcuts = useCallback(() => setShortcutsOpen(true), []);
  useConsoleHotkeys(NAV, showShortcuts);
  const accent = `var(--mantine-color-${ENV_COLOR[environment]}-6)`;
  const headerHeight = 64;
  const label = NAV.find((n) => n.section === section)?.label ?? section;

  useEffect(() => {
    document.title = `${label} · ${ENV_LABEL[environment]} — Verification Console`;
  }, [label, environment]);

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
          <Group gap="xs" wrap="nowrap">
            <PaletteButton />
            <Tooltip label="Keyboard shortcuts (?)" withArrow>
              <ActionIcon variant="subtle" color="gray" onClick={showShortcuts} aria-label="Keyboard shortcuts" data-testid="shortcuts-open">
                <IconKeyboard size={18} />
              </ActionIcon>
            </Tooltip>
            <ApiBaseUrl url={info.apiBaseUrl} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" style={{ borderLeft: `5px solid ${accent}` }}>
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
          <Group
            gap="xs"
            data-testid="page-context"
            data-environment={environment}
            px="sm"
            py={4}
            style={{ borderLeft: `4px solid ${accent}`, background: `var(--mantine-color-${ENV_COLOR[environment]}-light)` }}
          >
            <EnvBadge />
            <Text size="sm" fw={500}>
              {label}
            </Text>
            <Text size="xs" c="dimmed">
              {environment === 'live' ? 'real checks, charged to the wallet' : 'test data, never charged'}
            </Text>
          </Group>
          <StorageBanner />
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
      <CommandPalette nav={NAV} onShowShortcuts={showShortcuts} />
      <ShortcutsModal opened={shortcutsOpen} onClose={() => setShortcutsOpen(false)} nav={NAV} />
      <LiveConfirmModal />
    </AppShell>
  );
}
