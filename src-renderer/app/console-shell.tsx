// The app frame: header (product, the one environment badge and its switch, palette, API base URL), the section
// navigation (behind a burger below 1100 px), the environment's colour frame around the window, the developer
// options as one line that expands, the live warning once, every screen's route (app/routes.ts), the palette.
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { ActionIcon, Alert, Anchor, AppShell, Badge, Box, Burger, Button, Code, Collapse, CopyButton, EmptyState, Group, Kbd, NavLink, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
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
  IconLogout,
  IconUserCircle,
} from '@tabler/icons-react';
import type { AppInfo, ChannelName } from '../../src-shared/channels';
import { signOut } from '../client/bridge';
import { HistoryRoute } from './history-route';
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
import { AppInfoContext, canCall } from './app-info';
import { ENV_LABEL, EnvironmentSwitch, LiveConfirmModal, OpenAfterSwitch } from './environment';
import { MENU_NAVIGATION, paths, sectionOf } from './routes';
import { useConsole, type Section } from './store';
import { ENV_COLOR } from './theme';
import { StorageBanner } from './storage-banner';
import { DemoMark } from './demo-mark';
import { AuditPage } from '../features/audit/audit-page';

/**
 * Navigation order is also the Alt+1…9 order and the palette's page order. A section with `needs` is shown only to
 * a signed-in team user whose role may call that channel (src-shared/channel-roles.ts).
 */
const NAV: { section: Section; label: string; icon: ReactNode; needs?: ChannelName }[] = [
  { section: 'dashboard', label: 'Dashboard', icon: <IconGauge size={18} /> },
  { section: 'verify', label: 'Verify', icon: <IconBuildingBank size={18} /> },
  { section: 'history', label: 'History', icon: <IconHistory size={18} /> },
  { section: 'keys', label: 'API keys', icon: <IconKey size={18} />, needs: 'keys:list' },
  { section: 'webhooks', label: 'Webhooks', icon: <IconWebhook size={18} /> },
  { section: 'routing', label: 'Routing', icon: <IconRoute size={18} /> },
  { section: 'wallet', label: 'Wallet', icon: <IconWallet size={18} /> },
  { section: 'providers', label: 'Providers', icon: <IconPlugConnected size={18} />, needs: 'providers:list' },
  { section: 'settings', label: 'Settings', icon: <IconSettings size={18} /> },
  { section: 'audit', label: 'Audit', icon: <IconShieldCheck size={18} />, needs: 'audit:list' },
];

/** The signed-in team user and role, with the sign-out action (a team server only). */
function UserMenu({ user, compact }: { user: NonNullable<AppInfo['user']>; compact: boolean }) {
  const [busy, setBusy] = useState(false);
  return (
    <Group gap={6} wrap="nowrap" data-testid="user-menu" style={{ flexShrink: 0 }}>
      <Tooltip label={`Signed in as ${user.email} (${user.role})`} withArrow>
        <Group gap={4} wrap="nowrap" aria-label={`Signed in as ${user.email}, ${user.role}`}>
          <IconUserCircle size={18} aria-hidden color="var(--mantine-color-dimmed)" />
          {!compact && (
            <Text span size="sm" data-testid="signed-in-user" style={{ whiteSpace: 'nowrap' }}>
              {user.email}
            </Text>
          )}
          <Badge size="xs" variant="light" data-testid="signed-in-role">
            {user.role}
          </Badge>
        </Group>
      </Tooltip>
      <Button
        variant="default"
        size="xs"
        leftSection={<IconLogout size={14} />}
        loading={busy}
        data-testid="sign-out"
        onClick={() => {
          setBusy(true);
          void signOut().finally(() => setBusy(false));
        }}
      >
        Sign out
      </Button>
    </Group>
  );
}

/** A screen the signed-in role may not use (reached by address; the navigation does not offer it). */
function NotAllowed({ info }: { info: AppInfo }) {
  return (
    <EmptyState
      data-testid="not-allowed"
      title="Not available to your role"
      description={`This screen needs a higher role than ${info.user?.role ?? 'yours'}. Ask an owner or admin of your organization.`}
    >
      <EmptyState.Actions>
        <Button component={Link} to={paths.dashboard()}>
          Open the dashboard
        </Button>
      </EmptyState.Actions>
    </EmptyState>
  );
}

/** Below this width the navigation folds behind the header's burger (Mantine AppShell's breakpoint). */
export const NAV_BREAKPOINT = '68.75em'; // 1100 px

function ApiBaseUrl({ url }: { url: string | null }) {
  if (!url) return <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>API not listening</Text>;
  return (
    <Group gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
      <Text size="sm" c="dimmed" visibleFrom="lg">
        API
      </Text>
      <Code data-testid="api-base-url" title={url} style={{ display: 'block', whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', minWidth: 0 }}>
        {url}
      </Code>
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

function PaletteButton({ compact }: { compact: boolean }) {
  if (compact)
    return (
      <Tooltip label="Search (Ctrl K)" withArrow>
        <ActionIcon variant="default" size="lg" onClick={() => spotlight.open()} aria-label="Search (Ctrl K)" data-testid="palette-open">
          <IconSearch size={16} />
        </ActionIcon>
      </Tooltip>
    );
  return (
    <Button
      variant="default"
      size="xs"
      leftSection={<IconSearch size={14} />}
      rightSection={<Kbd size="xs">Ctrl K</Kbd>}
      onClick={() => spotlight.open()}
      data-testid="palette-open"
      style={{ flexShrink: 0 }}
    >
      Search
    </Button>
  );
}

/** The developer options in force, as one line; "Details" unfolds one line per option. */
function DeveloperOptions({ warnings }: { warnings: readonly string[] }) {
  const [open, { toggle }] = useDisclosure(false);
  if (warnings.length === 0) return null;
  return (
    <Box data-testid="dev-options" px="sm" py={4} style={{ border: '1px solid var(--mantine-color-yellow-outline)', borderRadius: 'var(--mantine-radius-sm)' }}>
      <Group gap="xs" wrap="nowrap">
        <IconAlertTriangle size={16} color="var(--mantine-color-yellow-text)" style={{ flexShrink: 0 }} />
        <Text size="sm" fw={500} style={{ whiteSpace: 'nowrap' }}>
          {warnings.length === 1 ? 'Developer option active' : `${warnings.length} developer options active`}
        </Text>
        <Text size="sm" c="dimmed" truncate="end" style={{ flex: 1, minWidth: 0 }}>
          {warnings.join(' · ')}
        </Text>
        <Anchor component="button" type="button" size="sm" onClick={toggle} aria-expanded={open} data-testid="dev-options-toggle" style={{ whiteSpace: 'nowrap' }}>
          {open ? 'Hide' : 'Details'}
        </Anchor>
      </Group>
      <Collapse expanded={open}>
        <Stack gap={2} mt={4}>
          {warnings.map((w) => (
            <Text key={w} size="sm" data-testid="app-warning">
              {w}
            </Text>
          ))}
        </Stack>
      </Collapse>
    </Box>
  );
}

function NotFound() {
  const location = useLocation();
  return (
    <EmptyState
      data-testid="not-found"
      title="No screen at this address"
      description={`Nothing in the console answers ${location.pathname}. The link may be mistyped, or made by a newer version.`}
    >
      <EmptyState.Actions>
        <Button component={Link} to={paths.dashboard()}>
          Open the dashboard
        </Button>
      </EmptyState.Actions>
    </EmptyState>
  );
}

function ConsoleRoutes({ info }: { info: AppInfo }) {
  const allowed = (channel: ChannelName, page: ReactNode) => (canCall(info, channel) ? page : <NotAllowed info={info} />);
  return (
    <Routes>
      <Route index element={<Navigate to={paths.dashboard()} replace />} />
      <Route path="dashboard" element={<DashboardPage info={info} />} />
      <Route path="verify" element={<Navigate to={paths.verify()} replace />} />
      <Route path="verify/:kind" element={<VerifyPage />} />
      <Route path="history/*" element={<HistoryRoute />} />
      <Route path="keys" element={allowed('keys:list', <KeysPage />)} />
      <Route path="webhooks/*" element={<WebhooksPage />} />
      <Route path="routing" element={<Navigate to={paths.routing()} replace />} />
      <Route path="routing/*" element={<RoutingPage />} />
      <Route path="wallet" element={<WalletPage />} />
      <Route path="providers" element={allowed('providers:list', <ProvidersPage />)} />
      <Route path="settings" element={<SettingsPage />} />
      <Route path="audit" element={allowed('audit:list', <AuditPage />)} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

export function ConsoleShell({ info }: { info: AppInfo }) {
  const location = useLocation();
  const section = sectionOf(location.pathname);
  const environment = useConsole((s) => s.environment);
  const [navOpen, { toggle: toggleNav, close: closeNav }] = useDisclosure(false);
  const wide = useMediaQuery(`(min-width: ${NAV_BREAKPOINT})`, true, { getInitialValueInEffect: false });
  const roomy = useMediaQuery('(min-width: 62em)', true, { getInitialValueInEffect: false });
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const showShortcuts = useCallback(() => setShortcutsOpen(true), []);
  const nav = useMemo(() => NAV.filter((n) => !n.needs || canCall(info, n.needs)), [info]);
  useConsoleHotkeys(nav, showShortcuts);
  const accent = `var(--mantine-color-${ENV_COLOR[environment]}-6)`;
  const headerHeight = 60;
  const label = NAV.find((n) => n.section === section)?.label ?? 'Not found';

  useEffect(() => {
    document.title = `${label} · ${ENV_LABEL[environment]} — Verification Console`;
  }, [label, environment]);
  // A page picked from the folded navigation closes it.
  useEffect(() => closeNav(), [location.pathname, closeNav]);

  return (
    <AppInfoContext.Provider value={info}>
    <AppShell
      header={{ height: headerHeight }}
      navbar={{ width: 210, breakpoint: NAV_BREAKPOINT, collapsed: { mobile: !navOpen } }}
      padding="md"
      data-environment={environment}
    >
      {/* The environment's colour frame: the one place, with the header badge, that says where the console acts. */}
      <Box
        aria-hidden
        data-testid="env-frame"
        data-environment={environment}
        style={{ position: 'fixed', inset: 0, border: `4px solid ${accent}`, pointerEvents: 'none', zIndex: 1000 }}
      />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
            {!wide && <Burger opened={navOpen} onClick={toggleNav} size="sm" aria-label={navOpen ? 'Close navigation' : 'Open navigation'} data-testid="nav-burger" />}
            <Title order={1} fz="lg" style={{ whiteSpace: 'nowrap' }}>
              {roomy ? 'Verification Console' : 'Console'}
            </Title>
            {roomy && (
              <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                v{info.version}
              </Text>
            )}
          </Group>
          <EnvironmentSwitch />
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <DemoMark />
            <PaletteButton compact={!roomy} />
            <Tooltip label="Keyboard shortcuts (?)" withArrow>
              <ActionIcon variant="subtle" color="gray" size="lg" onClick={showShortcuts} aria-label="Keyboard shortcuts" data-testid="shortcuts-open">
                <IconKeyboard size={18} />
              </ActionIcon>
            </Tooltip>
            <ApiBaseUrl url={info.apiBaseUrl} />
            {info.user && <UserMenu user={info.user} compact={!roomy} />}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections">
        {nav.map((n) => (
          <NavLink
            key={n.section}
            component={Link}
            to={paths.section(n.section)}
            // Marks the navigation as the menu's: on the page it already shows, the router replaces the entry, and a
            // page that keeps its place across its own replaces (History) starts over on this one.
            state={MENU_NAVIGATION}
            data-testid={`nav-${n.section}`}
            label={n.label}
            leftSection={n.icon}
            active={section === n.section}
            aria-current={section === n.section ? 'page' : undefined}
            variant="light"
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Stack gap="sm">
          <StorageBanner />
          <DeveloperOptions warnings={info.warnings} />
          {environment === 'live' && (
            <Alert color="red" variant="light" py={6} icon={<IconAlertTriangle size={16} />} data-testid="live-banner">
              Live: verifications reach real providers and are charged to the wallet.
            </Alert>
          )}
          <ConsoleRoutes info={info} />
        </Stack>
      </AppShell.Main>
      <CommandPalette nav={nav} onShowShortcuts={showShortcuts} />
      <ShortcutsModal opened={shortcutsOpen} onClose={() => setShortcutsOpen(false)} nav={nav} />
      <LiveConfirmModal />
      <OpenAfterSwitch />
    </AppShell>
    </AppInfoContext.Provider>
  );
}
