// The wallet: balance and status, a low-balance warning, top-up and suspend/activate (both confirmed, since they
// change what live checks can do).
import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPause, IconPlayerPlay, IconPlus } from '@tabler/icons-react';
import type { WalletView } from '../../../src-shared/schemas/billing';
import { call } from '../../client/bridge';
import { formatMoney, formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { currencyDigits, isCurrencyCode, isLowBalance, LOW_BALANCE_MAJOR, parseMajorAmount } from '../../../src-shared/money';
import { useCan } from '../../app/app-info';

function TopUpModal({ wallet, opened, onClose, onDone }: { wallet: WalletView; opened: boolean; onClose: () => void; onDone: (w: WalletView) => void }) {
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState(wallet.currency);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Only an empty wallet may change currency (the service refuses otherwise), so only then is it editable.
  const currencyLocked = wallet.balance !== 0;
  const cur = currencyLocked ? wallet.currency : currency.trim().toUpperCase();

  async function submit() {
    if (!isCurrencyCode(cur)) return setError('Enter a three-letter ISO 4217 currency code, e.g. USD.');
    const parsed = parseMajorAmount(amount, cur);
    if (!parsed.ok) return setError(parsed.message);
    if (parsed.minor < 1) return setError('The amount must be more than zero.');
    setBusy(true);
    try {
      const w = await call('wallet:topUp', { amount: parsed.minor, currency: cur });
      notifySuccess(`Added ${formatMoney(parsed.minor, cur)}. The balance is now ${formatMoney(w.balance, w.currency)}.`, 'Wallet topped up');
      setAmount('');
      onDone(w);
    } catch (e) {
      notifyError(e, 'Top-up failed');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title="Top up the wallet" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
      >
        <Stack gap="sm">
          <Group align="flex-start" grow>
            <TextInput
              data-autofocus
              data-testid="topup-amount"
              label="Amount"
              description="In major units, e.g. 25.00"
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                setAmount(e.currentTarget.value);
                setError(null);
              }}
              error={error}
            />
            <TextInput
              data-testid="topup-currency"
              label="Currency"
              description={currencyLocked ? `The wallet is held in ${wallet.currency}` : 'The wallet is empty: any ISO code'}
              maxLength={3}
              disabled={currencyLocked}
              value={cur}
              onChange={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
            />
          </Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} data-testid="topup-submit">
              Add funds
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function StatusModal({ wallet, opened, onClose, onDone }: { wallet: WalletView; opened: boolean; onClose: () => void; onDone: (w: WalletView) => void }) {
  const [busy, setBusy] = useState(false);
  const next = wallet.status === 'active' ? 'suspended' : 'active';
  async function confirm() {
    setBusy(true);
    try {
      const w = await call('wallet:setStatus', { status: next });
      notifySuccess(next === 'suspended' ? 'Live verifications are now refused with WALLET_SUSPENDED.' : 'Live verifications are charged again.', `Wallet ${w.status}`);
      onDone(w);
    } catch (e) {
      notifyError(e, 'Could not change the wallet status');
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal opened={opened} onClose={onClose} title={next === 'suspended' ? 'Suspend the wallet?' : 'Reactivate the wallet?'} centered>
      <Stack gap="sm">
        <Text size="sm">
          {next === 'suspended'
            ? 'While the wallet is suspended every live verification is refused (HTTP 402, WALLET_SUSPENDED) and nothing is charged. Sandbox is not affected.'
            : 'Live verifications will be accepted and charged to this wallet again.'}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={next === 'suspended' ? 'red' : 'green'} loading={busy} onClick={() => void confirm()} data-testid="wallet-status-confirm">
            {next === 'suspended' ? 'Suspend wallet' : 'Activate wallet'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function WalletCard({ wallet, onChange }: { wallet: WalletView; onChange: (w: WalletView) => void }) {
  const can = useCan();
  const [topUp, setTopUp] = useState(false);
  const [statusOpen, setStatusOpen] = useState(false);
  const low = isLowBalance(wallet.balance, wallet.currency);
  return (
    <Paper withBorder p="md" data-testid="wallet-card" data-status={wallet.status}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Balance
            </Text>
            <Group gap="sm" align="center">
              <Title order={2} data-testid="wallet-balance" data-minor={wallet.balance} c={low ? 'orange.8' : undefined}>
                {formatMoney(wallet.balance, wallet.currency)}
              </Title>
              <Badge data-testid="wallet-status" color={wallet.status === 'active' ? 'green' : 'red'} variant="light" size="lg">
                {wallet.status}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed">
              {wallet.currency} · last change {formatTime(wallet.updatedAt, 'never')}
            </Text>
          </Stack>
          <Group gap="xs">
            {can('wallet:topUp') && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setTopUp(true)} data-testid="wallet-topup">
              Top up
            </Button>
            )}
            {can('wallet:setStatus') && (
            <Button
              variant="light"
              color={wallet.status === 'active' ? 'red' : 'green'}
              leftSection={wallet.status === 'active' ? <IconPlayerPause size={16} /> : <IconPlayerPlay size={16} />}
              onClick={() => setStatusOpen(true)}
              data-testid="wallet-toggle-status"
            >
              {wallet.status === 'active' ? 'Suspend' : 'Activate'}
            </Button>
            )}
          </Group>
        </Group>
        {wallet.status === 'suspended' && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} data-testid="wallet-suspended">
            The wallet is suspended: live verifications are refused with WALLET_SUSPENDED. Activate it to accept them again.
          </Alert>
        )}
        {low && (
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={16} />} data-testid="wallet-low-balance">
            The balance is below {formatMoney(LOW_BALANCE_MAJOR * 10 ** currencyDigits(wallet.currency), wallet.currency)}. Live checks whose price exceeds the
            balance are refused with INSUFFICIENT_FUNDS — top up to keep them running.
          </Alert>
        )}
      </Stack>
      <TopUpModal
        key={wallet.currency}
        wallet={wallet}
        opened={topUp}
        onClose={() => setTopUp(false)}
        onDone={(w) => {
          setTopUp(false);
          onChange(w);
        }}
      />
      <StatusModal
        wallet={wallet}
        opened={statusOpen}
        onClose={() => setStatusOpen(false)}
        onDone={(w) => {
          setStatusOpen(false);
          onChange(w);
        }}
      />
    </Paper>
  );
}
