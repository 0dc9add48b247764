// Settings › Demo data (issue 23, docs/demo.md): load about a month of sandbox activity for a demo, or remove exactly
// it. While loading, the listed demo records are counted every half second (they commit check by check), so the
// card shows progress without a streaming channel.
import { useCallback, useEffect, useRef, useState } from 'react';
import { Badge, Button, Group, NumberInput, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { DEMO_DAYS_MAX, type DemoStatusView } from '../../../src-shared/channels-demo';
import { call } from '../../client/bridge';
import { notifySuccess } from '../../app/notify';
import { ErrorAlert } from './error-alert';
import { numberFieldValue } from './number-field';
import { IconRoute2 } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { startDemoTour } from '../tour/demo-tour';

/** About two records per check (the check and its idempotency key): enough for a progress estimate. */
const RECORDS_PER_DAY = 62;

export function DemoPanel() {
  const navigate = useNavigate();
  const [status, setStatus] = useState<DemoStatusView | null>(null);
  const [days, setDays] = useState<number | string>(30);
  const [busy, setBusy] = useState<'load' | 'remove' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [daysError, setDaysError] = useState<string | undefined>();
  const poll = useRef<ReturnType<typeof setInterval> | null>(null);

  const refresh = useCallback(async () => {
    try {
      setStatus(await call('demo:status', {}));
    } catch (e) {
      setError(e);
    }
  }, []);

  useEffect(() => {
    void refresh();
    return () => {
      if (poll.current) clearInterval(poll.current);
    };
  }, [refresh]);

  const load = async () => {
    // An empty field is not 0 days: said at the field, before anything is sent.
    const n = numberFieldValue(days);
    if (n === null || !Number.isInteger(n) || n < 1 || n > DEMO_DAYS_MAX) {
      setDaysError(`Enter a whole number of days from 1 to ${DEMO_DAYS_MAX}.`);
      return;
    }
    setBusy('load');
    setError(null);
    poll.current = setInterval(() => void refresh(), 500);
    try {
      const r = await call('demo:load', { days: n });
      notifySuccess(`Demo data loaded: ${r.checks} sandbox checks over ${n} days.`);
    } catch (e) {
      setError(e);
    } finally {
      if (poll.current) clearInterval(poll.current);
      poll.current = null;
      setBusy(null);
      await refresh();
    }
  };

  const remove = async () => {
    setBusy('remove');
    setError(null);
    try {
      const r = await call('demo:remove', {});
      notifySuccess(r.total === 0 ? 'There was no demo data to remove.' : `Removed ${r.total} demo records.`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  const wanted = (numberFieldValue(days) || 30) * RECORDS_PER_DAY;
  return (
    <Paper withBorder p="md" data-testid="demo-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} size="h4">
            Demo data
          </Title>
          {status?.present && (
            <Badge color="grape" variant="light" data-testid="demo-badge">
              demo data
            </Badge>
          )}
        </Group>
        <Text size="sm">
          Fills the sandbox with a month of believable activity — checks across corridors and kinds, two team members, two sandbox keys, a webhook
          with its deliveries, retries and one outage, and a payouts file checked as a batch CSV with its result files — through the same rules as the API. Remove takes out exactly those records and files; anything you made stays, and the audit trail records both.
        </Text>
        {status?.present && (
          <Text size="sm" c="dimmed" data-testid="demo-status">
            {status.records === 1 ? '1 demo record' : `${status.records} demo records`} in the store.
          </Text>
        )}
        {busy === 'load' && <Progress value={Math.min(99, ((status?.records ?? 0) / wanted) * 100)} animated aria-label="Loading demo data" />}
        <ErrorAlert error={error} title="Demo data" />
        <Group align="flex-end">
          <NumberInput
            label="Days"
            min={1}
            max={DEMO_DAYS_MAX}
            value={days}
            onChange={(v) => {
              setDays(v);
              setDaysError(undefined);
            }}
            error={daysError}
            w={100}
            disabled={busy !== null || status?.present === true}
            data-testid="demo-days"
          />
          <Button onClick={() => void load()} loading={busy === 'load'} disabled={busy !== null || status?.present === true} data-testid="demo-load">
            Load demo data
          </Button>
          <Button variant="default" leftSection={<IconRoute2 size={16} aria-hidden />} onClick={() => void startDemoTour((to) => void navigate(to))} disabled={busy !== null || !status?.present} data-testid="demo-tour">
            Take the tour
          </Button>
          <Button color="red" variant="light" onClick={() => void remove()} loading={busy === 'remove'} disabled={busy !== null || !status?.present} data-testid="demo-remove">
            Remove demo data
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
