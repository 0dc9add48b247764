// Recover (docs/webhooks.md "Recovery"): redeliver every event of a period that the endpoint missed, each as a new
// delivery on the normal retry schedule, with a live preview count. Re-enabling a failed webhook opens this same
// dialog, so "re-enable only" and "re-enable and redeliver" are side by side.
import { useEffect, useState } from 'react';
import { Alert, Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import type { Environment } from '../../../src-shared/schemas/common';
import type { RecoveryPreview, RecoveryRequest, Webhook } from '../../../src-shared/schemas/webhooks';
import { ConsoleError, call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';

export interface RecoverTarget {
  webhook: Pick<Webhook, 'id' | 'url' | 'status'>;
}

function periodOf(since: string, until: string): RecoveryRequest {
  return { ...(since.trim() ? { since: since.trim() } : {}), ...(until.trim() ? { until: until.trim() } : {}) };
}

export function RecoverModal(props: { target: RecoverTarget | null; environment: Environment; onClose: () => void; onDone: () => void }) {
  const { target, environment } = props;
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [preview, setPreview] = useState<RecoveryPreview | null>(null);
  const [problem, setProblem] = useState<{ field: string; message: string } | null>(null);
  const [busy, setBusy] = useState<'recover' | 'reenable' | null>(null);
  /** The webhook never failed, so an empty From has no default: asked for in the help, not shown as an error. */
  const [needsStart, setNeedsStart] = useState(false);
  const failed = target?.webhook.status === 'failed';

  useEffect(() => {
    setSince('');
    setUntil('');
    setPreview(null);
    setProblem(null);
    setNeedsStart(false);
  }, [target?.webhook.id]);

  useEffect(() => {
    if (!target) return;
    let live = true;
    // A count for other input is not this input's: nothing is offered until the new preview answers.
    setPreview(null);
    const timer = setTimeout(() => {
      call('webhooks:recoverPreview', { environment, id: target.webhook.id, period: periodOf(since, until) })
        .then((p) => {
          if (!live) return;
          setPreview(p);
          setProblem(null);
        })
        .catch((e: unknown) => {
          if (!live) return;
          setPreview(null);
          const d = e instanceof ConsoleError ? e.details[0] : undefined;
          // Before anything is typed, "never failed: give the start" is what the field's help asks, not an error.
          if (d?.field === 'since' && since.trim() === '' && /never failed/.test(d.message)) {
            setNeedsStart(true);
            setProblem(null);
            return;
          }
          setProblem(d ?? { field: 'since', message: e instanceof Error ? e.message : String(e) });
        });
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [target, environment, since, until]);

  async function recover() {
    if (!target) return;
    setBusy('recover');
    try {
      const r = await call('webhooks:recover', { environment, id: target.webhook.id, period: periodOf(since, until) });
      notifySuccess(
        `${r.queued} event${r.queued === 1 ? '' : 's'} queued for ${target.webhook.url}${r.reenabled ? ' (re-enabled)' : ''}. They go out on the normal retry schedule.`,
        'Recovery',
      );
      props.onDone();
    } catch (e) {
      notifyError(e, 'Could not recover');
    } finally {
      setBusy(null);
    }
  }

  async function reEnableOnly() {
    if (!target) return;
    setBusy('reenable');
    try {
      await call('webhooks:update', { environment, id: target.webhook.id, patch: { status: 'active' } });
      notifySuccess(`${target.webhook.url} is active again. New events will be delivered; missed ones were not redelivered.`);
      props.onDone();
    } catch (e) {
      notifyError(e, 'Could not re-enable the webhook');
    } finally {
      setBusy(null);
    }
  }

  const n = preview?.toDeliver ?? 0;
  return (
    <Modal opened={target !== null} onClose={props.onClose} title={failed ? 'Re-enable webhook' : 'Recover events'} size="lg">
      {target && (
        <Stack data-testid="recover-modal">
          <Text size="sm">
            {failed ? (
              <>
                <Code>{target.webhook.url}</Code> is failed. Re-enabling it delivers new events only; recovery also redelivers the events it missed,
                each as a new delivery linked to its original event, signed fresh, on the normal retry schedule.
              </>
            ) : (
              <>
                Redeliver to <Code>{target.webhook.url}</Code> every event of the period it has not acknowledged, each as a new delivery linked to its
                original event, signed fresh, on the normal retry schedule.
              </>
            )}
          </Text>
          <Group grow align="flex-start">
            <TextInput
              label="From"
              description={needsStart ? 'ISO date-time; required: this webhook never failed' : 'ISO date-time; empty: since it last failed'}
              placeholder={preview?.since ?? '2026-11-24T09:00:00Z'}
              value={since}
              onChange={(e) => setSince(e.currentTarget.value)}
              error={problem?.field === 'since' ? problem.message : undefined}
              data-testid="recover-since"
            />
            <TextInput
              label="Until"
              description="ISO date-time; empty: now"
              placeholder="now"
              value={until}
              onChange={(e) => setUntil(e.currentTarget.value)}
              error={problem?.field === 'until' ? problem.message : undefined}
              data-testid="recover-until"
            />
          </Group>
          {problem && problem.field !== 'since' && problem.field !== 'until' && (
            <Alert color="orange" data-testid="recover-problem">
              {problem.message}
            </Alert>
          )}
          {preview && (
            <Alert color="blue" variant="light" icon={<IconInfoCircle size={18} />} data-testid="recover-preview" data-count={preview.toDeliver}>
              <b>{preview.toDeliver}</b> event{preview.toDeliver === 1 ? '' : 's'} to redeliver from {formatTime(preview.since)} to {formatTime(preview.until)}
              {preview.skipped > 0 ? ` (${preview.skipped} already delivered or pending, skipped)` : ''}.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            {failed && (
              <Button variant="light" color="green" loading={busy === 'reenable'} disabled={busy !== null} onClick={() => void reEnableOnly()} data-testid="reenable-only">
                Re-enable only
              </Button>
            )}
            <Button color="green" loading={busy === 'recover'} disabled={busy !== null || preview === null || problem !== null || n === 0}
              title={preview !== null && n === 0 ? 'Nothing to redeliver in this period' : undefined}
              onClick={() => void recover()} data-testid="recover-submit">
              {failed ? `Re-enable and redeliver ${n} event${n === 1 ? '' : 's'}` : `Redeliver ${n} event${n === 1 ? '' : 's'}`}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
