// The landing page: the period's verifications by status and corridor, the rates of interface §9 rule 5, webhook
// delivery health and the wallet, each linking to the filtered list behind it; then where this installation lives.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Card, Code, EmptyState, Grid, Group, Kbd, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconBuildingBank, IconChartBar, IconRefresh } from '@tabler/icons-react';
import { spotlight } from '@mantine/spotlight';
import type { AppInfo } from '../../src-shared/channels';
import type { DashboardSummary } from '../../src-shared/schemas/dashboard';
import { ConsoleError, call } from '../client/bridge';
import { CountryCard, RatesCard, StatusCard } from '../features/dashboard/verification-cards';
import { WalletTile, WebhookHealthCard } from '../features/dashboard/health-cards';
import { PERIODS, periodStart, type Period } from '../features/dashboard/period';
import { DashboardWebhookAlerts } from '../features/webhooks/failure-alerts';
import { formatTime } from './format';
import { PageTitle } from './page-title';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { paths } from './routes';
import { useConsole, type HistoryFilter } from './store';
import { usePacedLiveVersion } from './live-store';

type LoadError = { message: string; hint?: string | undefined };

function toLoadError(e: unknown): LoadError {
  if (e instanceof ConsoleError) return { message: e.message, hint: e.hint };
  return { message: 'The dashboard could not be loaded.', hint: 'Retry; if it keeps happening, restart the console.' };
}

export function DashboardPage({ info }: { info: AppInfo }) {
  const environment = useConsole((s) => s.environment);
  const navigate = useNavigate();
  const openHistory = useCallback((f: HistoryFilter) => void navigate(paths.history(f)), [navigate]);
  // The period is the address's (`#/dashboard?period=7d`), so reload and Back keep it.
  const [search] = useSearchParams();
  const period: Period = PERIODS.find((p) => p.value === search.get('period'))?.value ?? 'today';
  const setPeriod = (p: Period) => void navigate(paths.dashboard(p));
  const [summary, setSummary] = useState<DashboardSummary | null>(null);
  const [error, setError] = useState<LoadError | null>(null);
  const [loading, setLoading] = useState(false);
  const from = periodStart(period, Date.now());

  // Checks, deliveries and webhooks changing (a webhook turning failed) refresh the figures without a reload — paced by
  // what a load costs (a summary over 30 days of a large store reads many rows): live-pacer.ts.
  const { version: live, track } = usePacedLiveVersion('dashboard');
  const load = useCallback(async () => {
    setLoading(true);
    try {
      setSummary(await track(call('dashboard:summary', { environment, since: from })));
      setError(null);
    } catch (e) {
      setError(toLoadError(e));
    } finally {
      setLoading(false);
    }
  }, [environment, from, track]);

  useEffect(() => {
    void load();
  }, [load, live]);

  // A summary of the other environment must never sit under this one's label, even for a moment.
  const current = summary?.environment === environment ? summary : null;
  const empty = current !== null && current.verifications.total === 0;

  return (
    <Stack data-testid="dashboard" data-loaded={current !== null}>
      <PageTitle
        title="Dashboard"
        actions={
          <Group gap="sm">
            <SegmentedControl
              size="xs"
              data-testid="dash-period"
              value={period}
              onChange={(v) => setPeriod(PERIODS.find((p) => p.value === v)?.value ?? 'today')}
              data={PERIODS.map((p) => ({ value: p.value, label: p.label }))}
            />
            <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading} data-testid="dash-refresh">
              Refresh
            </Button>
          </Group>
        }
      />
      {current && (
        <Text size="xs" c="dimmed">
          Since {from} 00:00 UTC · updated {formatTime(current.generatedAt)}
        </Text>
      )}
      <DashboardWebhookAlerts reloadKey={current?.generatedAt ? Date.parse(current.generatedAt) : 0} />
      {error && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={error.message} data-testid="dash-error">
          {error.hint ?? 'Use Refresh to try again.'}
        </Alert>
      )}
      {empty && (
        <EmptyState
          data-testid="dash-empty"
          icon={<IconChartBar size={28} />}
          title={`No ${environment} checks ${period === 'today' ? 'today' : 'in this period'}`}
          description={
            environment === 'sandbox'
              ? 'Run a sandbox fixture to see the charts fill in: open the palette and type "fixture", or use the Verify page. API calls with a sandbox key count too.'
              : 'Live checks made through the API or the Verify page appear here. Each one is charged to the wallet.'
          }
        >
          <Group justify="center">
            <Button leftSection={<IconBuildingBank size={16} />} component={Link} to={paths.verify()}>
              Open Verify
            </Button>
            <Button variant="light" onClick={() => spotlight.open()} rightSection={<Kbd size="xs">Ctrl K</Kbd>}>
              Command palette
            </Button>
          </Group>
        </EmptyState>
      )}
      {current && !empty && (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <StatusCard summary={current} from={from} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <RatesCard summary={current} />
          </Grid.Col>
          <Grid.Col span={12}>
            <CountryCard summary={current} from={from} open={openHistory} />
          </Grid.Col>
        </Grid>
      )}
      {current && (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, lg: 7 }}>
            <WebhookHealthCard summary={current} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <WalletTile summary={current} />
          </Grid.Col>
        </Grid>
      )}
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
