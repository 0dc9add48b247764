// One delivery in full: summary, attempt log, payload JSON and the last response excerpt, with the developer
// actions of decisions §7: replay (to the webhook or a local receiver, original bytes or re-signed) and retry now.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, Divider, Drawer, Group, Loader, Paper, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconPlayerPlay, IconRepeat } from '@tabler/icons-react';
import type { Environment } from '../../../src-shared/schemas/common';
import type { DeliveryDetail, ReplayResult } from '../../../src-shared/schemas/webhooks';
import { call } from '../../client/bridge';
import { formatTime, STATUS_COLOR } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { AttemptTrack } from './attempt-track';
import { attemptOutcome, attemptsBeforeDrop, deliveryFate, extraError, formatDuration, localReceiverProblem, OUTCOME_COLOR, replayTarget, DROP_LABEL } from './timeline';

function ReplayBox({ delivery, environment, forwardUrl, onDone }: { delivery: DeliveryDetail; environment: Environment; forwardUrl: string | null; onDone: () => void }) {
  const [mode, setMode] = useState<'webhook' | 'local'>('webhook');
  const [localUrl, setLocalUrl] = useState(forwardUrl ?? 'http://localhost:3000/hooks');
  const [signature, setSignature] = useState<'original' | 'fresh'>('original');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ReplayResult | null>(null);
  const target = replayTarget(mode, localUrl);
  const localProblem = mode === 'local' ? localReceiverProblem(localUrl) : null;

  async function replay() {
    if (!target || localProblem) return;
    setBusy(true);
    setResult(null);
    try {
      const r = await call('webhooks:replay', { environment, id: delivery.id, resign: signature === 'fresh', ...target });
      setResult(r);
      onDone();
    } catch (e) {
      notifyError(e, 'Could not replay the delivery');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="sm" radius="sm" data-testid="replay-box">
      <Stack gap="xs">
        <Title order={6}>Replay</Title>
        <Text size="xs" c="dimmed">
          Sends the stored payload again. The delivery’s status and schedule do not change; the send is logged as a replay.
        </Text>
        <SegmentedControl
          data-testid="replay-target"
          value={mode}
          onChange={(v) => setMode(v === 'local' ? 'local' : 'webhook')}
          data={[
            { value: 'webhook', label: 'To the webhook URL' },
            { value: 'local', label: 'To a local receiver' },
          ]}
        />
        {mode === 'local' && (
          <TextInput
            data-testid="replay-local-url"
            label="Local receiver"
            value={localUrl}
            onChange={(e) => setLocalUrl(e.currentTarget.value)}
            error={localUrl.trim() ? localProblem : 'Enter the local receiver URL.'}
          />
        )}
        <SegmentedControl
          data-testid="replay-signature"
          value={signature}
          onChange={(v) => setSignature(v === 'fresh' ? 'fresh' : 'original')}
          data={[
            { value: 'original', label: 'Byte for byte (original signature)' },
            { value: 'fresh', label: 'Re-signed (fresh timestamp)' },
          ]}
        />
        {signature === 'original' && (
          <Text size="xs" c="dimmed">
            A receiver that checks <Code>webhook-timestamp</Code> may refuse an old signature: choose re-signed to test acceptance.
          </Text>
        )}
        <Group>
          <Button data-testid="replay-send" leftSection={<IconPlayerPlay size={16} />} loading={busy} disabled={!target || localProblem !== null} onClick={() => void replay()}>
            Replay
          </Button>
        </Group>
        {result && (
          <Alert color={result.ok ? 'green' : 'red'} data-testid="replay-result" data-ok={String(result.ok)} title={result.ok ? 'Replay delivered' : 'Replay not accepted'}>
            <Text size="sm">
              {result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'No response')} from <Code>{result.url}</Code> in{' '}
              {formatDuration(result.durationMs)}, {result.signature === 'original' ? 'original signature' : 'fresh signature'}.
            </Text>
            {result.statusCode !== null && extraError(result.statusCode, result.error) && <Text size="sm">{result.error}</Text>}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}

const dropAttempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;

export function DeliveryDrawer(props: { id: string | null; environment: Environment; forwardUrl: string | null; onClose: () => void; onChanged: () => void }) {
  const { id, environment, onClose, onChanged } = props;
  const [d, setD] = useState<DeliveryDetail | null>(null);
  const [retrying, setRetrying] = useState(false);

  const load = useCallback(async () => {
    if (!id) return;
    try {
      setD(await call('webhooks:delivery', { environment, id }));
    } catch (e) {
      notifyError(e, 'Could not open the delivery');
      onClose();
    }
  }, [id, environment, onClose]);

  useEffect(() => {
    setD(null);
    void load();
  }, [load]);

  async function retryNow() {
    if (!d) return;
    setRetrying(true);
    try {
      const next = await call('webhooks:retryNow', { environment, id: d.id });
      setD(next);
      const last = next.attemptLog.at(-1);
      notifySuccess(last ? `Attempt made: ${last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? 'no response')}.` : 'Attempt made.', 'Retry now');
      onChanged();
    } catch (e) {
      notifyError(e, 'Could not retry the delivery');
    } finally {
      setRetrying(false);
    }
  }

  const dropped = d ? deliveryFate(d).dropped : null;

  return (
    <Drawer opened={id !== null} onClose={onClose} position="right" size="xl" title="Webhook delivery" data-testid="delivery-drawer">
      {!d ? (
        <Loader />
      ) : (
        <Stack>
          <Group gap="xs">
            {/* The status wins: a dropped delivery that a retry later delivered reads "success", not "dropped". */}
            <Badge color={dropped ? 'gray' : (STATUS_COLOR[d.status] ?? 'gray')} variant="light" size="lg" data-testid="delivery-status">
              {dropped ? DROP_LABEL[dropped] : d.status}
            </Badge>
            <Code>{d.eventType}</Code>
            <Text size="sm" c="dimmed">
              {d.id}
            </Text>
          </Group>
          <Table withTableBorder>
            <Table.Tbody>
              <Table.Tr>
                <Table.Td w={170}>Verification</Table.Td>
                <Table.Td>
                  <Code>{d.verificationId}</Code>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>Event id</Table.Td>
                <Table.Td>
                  <Code>{d.eventId}</Code>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>Created</Table.Td>
                <Table.Td>{formatTime(d.createdAt)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>Attempts</Table.Td>
                <Table.Td>{d.attempts}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>Next attempt</Table.Td>
                <Table.Td>
                  {dropped && d.droppedAt
                    ? `none: ${DROP_LABEL[dropped]} at ${formatTime(d.droppedAt)}, after ${dropAttempts(attemptsBeforeDrop(d.droppedAt, d.attemptLog))}`
                    : formatTime(d.nextAttemptAt, d.status === 'pending' ? 'being sent' : 'none (finished)')}
                </Table.Td>
              </Table.Tr>
              {d.origin !== 'event' && (
                <Table.Tr>
                  <Table.Td>Origin</Table.Td>
                  <Table.Td data-testid="delivery-origin">
                    {d.origin === 'recovery' ? `recovery ${d.recoveryId ?? ''} (a redelivery of event ${d.eventId})` : 'sample event (vconsole webhooks trigger)'}
                  </Table.Td>
                </Table.Tr>
              )}
              {d.error && (
                <Table.Tr>
                  <Table.Td>Last error</Table.Td>
                  <Table.Td>{d.error}</Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
          <AttemptTrack createdAt={d.createdAt} attempts={d.attemptLog} nextAttemptAt={d.nextAttemptAt} testId="delivery-drawer-track" />
          {/* Retry now only where an attempt can change something: a delivered one has nothing left to retry. */}
          {d.status === 'success' ? (
            <Text size="xs" c="dimmed" data-testid="retry-not-needed">
              Delivered: nothing to retry. To send the same event again (e.g. to test a receiver), use Replay below.
            </Text>
          ) : (
            <Group>
              <Button data-testid="retry-now" variant="light" leftSection={<IconRepeat size={16} />} loading={retrying} onClick={() => void retryNow()}>
                Retry now
              </Button>
              <Text size="xs" c="dimmed" style={{ flex: 1 }}>
                {d.status === 'pending'
                  ? 'Makes the next scheduled attempt at once (it counts towards the five).'
                  : 'Makes one extra manual attempt; it can turn the delivery into a success but never fails the webhook.'}
              </Text>
            </Group>
          )}
          <ReplayBox delivery={d} environment={environment} forwardUrl={props.forwardUrl} onDone={() => void load()} />
          <Divider />
          <Title order={5}>Attempt log</Title>
          {d.attemptLog.length === 0 ? (
            <Text size="sm" c="dimmed" data-testid="attempt-log-empty">
              No attempt yet: the first one is made as soon as the queue picks the delivery up.
            </Text>
          ) : (
            <Table striped withTableBorder data-testid="attempt-log">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>#</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Answer</Table.Th>
                  <Table.Th>Duration</Table.Th>
                  <Table.Th>URL</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {d.attemptLog.map((a, i) => (
                  <Table.Tr key={i} data-outcome={attemptOutcome(a)}>
                    <Table.Td>{a.attempt ?? '—'}</Table.Td>
                    <Table.Td>{a.kind}</Table.Td>
                    <Table.Td>{formatTime(a.startedAt)}</Table.Td>
                    <Table.Td>
                      <Badge color={OUTCOME_COLOR[attemptOutcome(a)]} variant="light">
                        {a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no response'}
                      </Badge>
                      {extraError(a.statusCode, a.error) && (
                        <Text size="xs" c="dimmed">
                          {a.error}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{formatDuration(a.durationMs)}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      <Text size="xs">{a.url}</Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Title order={5}>Payload</Title>
          <Code block data-testid="delivery-payload">
            {JSON.stringify(d.payload, null, 2)}
          </Code>
          <Title order={5}>Last response</Title>
          {d.response ? (
            <Stack gap={4}>
              <Text size="sm">{d.response.statusCode !== null ? `HTTP ${d.response.statusCode}` : 'No status code'}</Text>
              <Code block data-testid="delivery-response" style={{ maxHeight: 240, overflow: 'auto' }}>
                {d.response.body ?? '(empty body)'}
              </Code>
              <Text size="xs" c="dimmed">
                At most the first 2 KB of the body are kept.
              </Text>
            </Stack>
          ) : (
            <Text size="sm" c="dimmed">
              No response recorded{d.error ? `: ${d.error}` : '.'}
            </Text>
          )}
        </Stack>
      )}
    </Drawer>
  );
}
