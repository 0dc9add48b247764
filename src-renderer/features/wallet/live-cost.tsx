// What a live action costs, shown where it is started: the price of one check next to a live submit button, and
// the cost preview of a live batch (or a plain "not charged" when its checks are not billed).
import { useCallback, useEffect, useState } from 'react';
import { Alert, Anchor, Badge, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconAlertTriangle, IconCoin } from '@tabler/icons-react';
import type { WalletView } from '../../../src-shared/schemas/billing';
import { call } from '../../client/bridge';
import { formatMoney } from '../../app/format';
import { Link } from 'react-router';
import { paths } from '../../app/routes';
import { costPreview, type PriceLike } from '../../../src-shared/cost-preview';

interface Billing {
  prices: PriceLike[];
  services: string[];
  wallet: WalletView;
}

/**
 * Read fresh on every mount and on demand: an owner may change a price in another window, and a stale price
 * next to a submit button would be worse than none. A failure leaves `billing` null and says so.
 */
export function useBilling() {
  const [billing, setBilling] = useState<Billing | null>(null);
  const [failed, setFailed] = useState(false);
  const load = useCallback(async () => {
    try {
      const [prices, services, wallet] = await Promise.all([call('prices:list', {}), call('services:list', {}), call('wallet:get', {})]);
      setBilling({ prices, services, wallet });
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { billing, failed, reload: load };
}

function PriceListLink({ label = 'Prices' }: { label?: string }) {

  return (
    <Anchor component={Link} to={paths.section('wallet')} size="xs" data-testid="price-list-link">
      {label}
    </Anchor>
  );
}

/**
 * The price of one live check of `service`, or why it would be refused before reaching the provider. `reloadKey`
 * re-reads the wallet after a submission so the balance warning follows the charges.
 */
export function LivePrice({ service, reloadKey = 0 }: { service: string | null; reloadKey?: number }) {
  const { billing, failed, reload } = useBilling();
  useEffect(() => {
    if (reloadKey > 0) void reload();
  }, [reloadKey, reload]);
  if (!service) return null;
  if (failed) {
    return (
      <Text size="xs" c="dimmed" data-testid="live-price" data-state="unknown">
        The price could not be read. <PriceListLink label="Open the price list" />
      </Text>
    );
  }
  if (!billing) return null;
  const preview = costPreview({ [service]: 1 }, billing.prices, billing.wallet, billing.services);
  const line = preview.lines[0];
  const priced = line?.unit != null && line.currency !== null;
  return (
    <Group gap={6} wrap="wrap" data-testid="live-price" data-state={preview.covers ? 'ok' : 'refused'} data-minor={priced ? line.unit : undefined}>
      <IconCoin size={14} />
      {priced ? (
        <Text size="xs">
          <b>{formatMoney(line.unit!, line.currency!)}</b> per check ({service}) · balance {formatMoney(billing.wallet.balance, billing.wallet.currency)}
        </Text>
      ) : (
        <Text size="xs">{service}</Text>
      )}
      {!preview.covers && (
        <Text size="xs" c="red.8" data-testid="live-price-problem">
          {preview.problems.join(' ')}
        </Text>
      )}
      <PriceListLink />
    </Group>
  );
}

/**
 * Shown on a live batch's preview. `counts` is checks per billed service; when the batch's checks are not billed
 * at all (`billed` false) it says so instead of showing a zero that could read as "free for now".
 */
export function BatchCostPreview({ billed, counts }: { billed: boolean; counts: Record<string, number> }) {
  const { billing, failed } = useBilling();
  if (!billed) {
    return (
      <Alert color="blue" variant="light" icon={<IconCoin size={18} />} data-testid="batch-cost" data-billed="false" p="xs">
        <Text size="sm">
          Routing checks in a batch are not charged: BIC, routing-number and route rows are checked against your imported directory. Only a single
          correspondents lookup is billed. <PriceListLink label="See the price list" />
        </Text>
      </Alert>
    );
  }
  if (failed) {
    return (
      <Alert color="orange" variant="light" data-testid="batch-cost" data-billed="true">
        The cost could not be worked out (prices or wallet did not load). <PriceListLink label="Open the price list" />
      </Alert>
    );
  }
  if (!billing) return null;
  const p = costPreview(counts, billing.prices, billing.wallet, billing.services);
  return (
    <Paper withBorder p="sm" data-testid="batch-cost" data-billed="true" data-covers={p.covers}>
      <Stack gap="xs">
        <Group gap="xs">
          <IconCoin size={16} />
          <Text size="sm" fw={600}>
            Cost of this run
          </Text>
          <PriceListLink />
        </Group>
        <Table fz="sm" withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Service</Table.Th>
              <Table.Th>Checks</Table.Th>
              <Table.Th>Price</Table.Th>
              <Table.Th>Subtotal</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.lines.map((l) => (
              <Table.Tr key={l.service}>
                <Table.Td>{l.service}</Table.Td>
                <Table.Td>{l.count.toLocaleString('en-US')}</Table.Td>
                <Table.Td>{l.unit !== null && l.currency ? formatMoney(l.unit, l.currency) : <Badge color="red">no price</Badge>}</Table.Td>
                <Table.Td>{l.subtotal !== null && l.currency ? formatMoney(l.subtotal, l.currency) : '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Text size="sm" data-testid="batch-cost-total">
          Total {p.total !== null ? formatMoney(p.total, p.currency) : 'unknown'} · balance {formatMoney(p.balance, p.currency)}
        </Text>
        {!p.covers && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} p="xs" data-testid="batch-cost-warning">
            {p.problems.join(' ')}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
