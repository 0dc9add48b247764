// Wallet: balance and status, prices, enabled services and usage. Billing concerns the live environment only,
// so this page is the same whichever environment the console is switched to.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Grid, Loader, Paper, Stack, Text } from '@mantine/core';
import { IconInfoCircle, IconRefresh } from '@tabler/icons-react';
import type { WalletView } from '../../../src-shared/schemas/billing';
import { call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { PageTitle } from '../../app/page-title';
import { useConsole } from '../../app/store';
import { PricesPanel, type Price } from './prices-panel';
import { ServicesPanel } from './services-panel';
import { UsagePanel } from './usage-panel';
import { WalletCard } from './wallet-card';
import { useLiveVersion } from '../../app/live-store';

export function WalletPage() {
  const environment = useConsole((s) => s.environment);
  const [wallet, setWallet] = useState<WalletView | null>(null);
  const [prices, setPrices] = useState<Price[] | null>(null);
  const [services, setServices] = useState<string[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [refreshKey, setRefreshKey] = useState(0);

  const loadPrices = useCallback(async () => {
    try {
      setPrices(await call('prices:list', {}));
    } catch (e) {
      notifyError(e, 'Could not load prices');
    }
  }, []);

  const load = useCallback(async () => {
    setLoading(true);
    // Independent panels: one failing must not blank the others.
    const [w, s] = await Promise.allSettled([call('wallet:get', {}), call('services:list', {}), loadPrices()]);
    if (w.status === 'fulfilled') setWallet(w.value);
    else notifyError(w.reason, 'Could not load the wallet');
    if (s.status === 'fulfilled') setServices(s.value);
    else notifyError(s.reason, 'Could not load enabled services');
    setRefreshKey((k) => k + 1);
    setLoading(false);
  }, [loadPrices]);

  useEffect(() => {
    void load();
  }, [load]);

  // A charge, a reversal or a top-up elsewhere moves the balance on screen by itself (docs/console-live.md).
  const live = useLiveVersion('wallet');
  useEffect(() => {
    if (live === 0) return;
    let current = true;
    call('wallet:get', {})
      .then((w) => {
        if (!current) return;
        setWallet(w);
        setRefreshKey((k) => k + 1);
      })
      .catch(() => {
        // Refresh reports errors; a missed live update is caught by the next one.
      });
    return () => {
      current = false;
    };
  }, [live]);

  const priced = useMemo(() => new Set((prices ?? []).map((p) => p.service)), [prices]);

  return (
    <Stack data-testid="wallet-page">
      <PageTitle
        title="Wallet"
        actions={
          <Button variant="light" leftSection={<IconRefresh size={16} />} onClick={() => void load()} loading={loading}>
            Refresh
          </Button>
        }
      />
      <Alert variant="light" color={environment === 'live' ? 'red' : 'blue'} icon={<IconInfoCircle size={18} />} data-testid="wallet-env-note">
        Billing applies to the <b>live</b> environment only: a live check of an enabled, priced service is charged to this wallet before the provider is
        asked, and reversed if no answer comes. Sandbox checks are free.
        {environment === 'sandbox' && ' You are in sandbox now; the settings here take effect when you verify in live.'}
      </Alert>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 6 }}>
          {wallet ? (
            <WalletCard wallet={wallet} onChange={setWallet} />
          ) : (
            <Paper withBorder p="md" h="100%">
              {loading ? <Loader size="sm" /> : <Text c="dimmed">The wallet could not be loaded. Use Refresh to try again.</Text>}
            </Paper>
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Paper withBorder p="md" h="100%">
            <Stack gap={6}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                Before a live check is accepted
              </Text>
              <Text size="sm">1. the service is enabled — otherwise SERVICE_NOT_ENABLED (403)</Text>
              <Text size="sm">2. the service has a price — otherwise SERVICE_PRICE_NOT_CONFIGURED (402)</Text>
              <Text size="sm">3. the wallet is active — otherwise WALLET_SUSPENDED (402)</Text>
              <Text size="sm">4. the balance covers the price — otherwise INSUFFICIENT_FUNDS (402)</Text>
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
      <PricesPanel prices={prices} loading={loading} defaultCurrency={wallet?.currency ?? 'USD'} onChanged={() => void loadPrices()} />
      <ServicesPanel enabled={services} priced={priced} onChanged={setServices} />
      <UsagePanel refreshKey={refreshKey} />
    </Stack>
  );
}
