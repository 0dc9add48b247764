// The webhook dialogs: create/edit (URL, events, description, status), the once-only secret reveal (after a
// rotation: both secrets and what each header carries until the old one stops), and a confirmation used for
// rotating a secret and deleting a webhook.
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Button, Checkbox, Code, CopyButton, Group, Modal, SegmentedControl, Stack, Table, Text, TextInput, Textarea } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { WEBHOOK_EVENTS, type Webhook, type WebhookEvent, type WebhookWithSecret } from '../../../src-shared/schemas/webhooks';
import { ConsoleError, call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { clearError, notifyError } from '../../app/notify';
import { useConsole } from '../../app/store';
import { useAppInfo } from '../../app/app-info';
import { SecretKey } from '../keys/secret-key';
import { WEBHOOK_DESCRIPTION_MAX } from '../../../src-shared/schemas/webhooks';

/** The one toast of a save that failed for a reason no field shows. */
const SAVE_ERROR = 'webhook-save';

const EVENT_HELP: Record<WebhookEvent, string> = {
  'verification.completed': 'A verification was processed with status success.',
  'verification.failed': 'A verification ended with status failed or error.',
};

type FieldErrors = Partial<Record<'url' | 'events' | 'description', string>>;

function fieldErrors(e: unknown): FieldErrors {
  if (!(e instanceof ConsoleError)) return {};
  const out: FieldErrors = {};
  for (const d of e.details) {
    const key = d.field.split('.').pop();
    if (key === 'url' || key === 'events' || key === 'description') out[key] = d.message;
  }
  // INVALID_WEBHOOK_URL may come without details: the message itself is about the URL.
  if (e.code === 'INVALID_WEBHOOK_URL' && !out.url) out.url = e.message;
  return out;
}

/** The URL rules as they hold for this run: the hosts --allow-webhook-host exempts are named, not denied. */
export function urlHelp(allowed: readonly string[]): string {
  const base = 'HTTPS only; private and loopback addresses are refused';
  if (allowed.length === 0) return `${base} (for a receiver on this machine, use “Forward to local receiver”).`;
  return `${base}, except ${allowed.join(', ')}: allowed for this run, over http or https (developer option --allow-webhook-host).`;
}

export function WebhookFormModal(props: {
  /** null: closed; 'new': create; a webhook: edit it. */
  target: Webhook | 'new' | null;
  onClose: () => void;
  onCreated: (w: WebhookWithSecret) => void;
  onUpdated: (w: Webhook) => void;
}) {
  const info = useAppInfo();
  const environment = useConsole((s) => s.environment);
  const editing = props.target !== null && props.target !== 'new' ? props.target : null;
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([...WEBHOOK_EVENTS]);
  const [description, setDescription] = useState('');
  const [status, setStatus] = useState<'active' | 'inactive'>('active');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (props.target === null) return;
    const w = props.target === 'new' ? null : props.target;
    setUrl(w?.url ?? '');
    setEvents(w ? [...w.events] : [...WEBHOOK_EVENTS]);
    setDescription(w?.description ?? '');
    setStatus(w?.status === 'inactive' ? 'inactive' : 'active');
    setErrors({});
  }, [props.target]);

  function validate(): FieldErrors {
    const out: FieldErrors = {};
    const u = url.trim();
    if (!u) out.url = 'Enter the HTTPS address that should receive the events.';
    if (events.length === 0) out.events = 'Choose at least one event.';
    if (description.trim().length > WEBHOOK_DESCRIPTION_MAX) out.description = `Use at most ${WEBHOOK_DESCRIPTION_MAX} characters.`;
    return out;
  }

  async function submit(e: FormEvent, reEnable = false) {
    e.preventDefault();
    const local = validate();
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setBusy(true);
    try {
      if (!editing) {
        const d = description.trim();
        props.onCreated(await call('webhooks:create', { environment, request: { url: url.trim(), events, ...(d ? { description: d } : {}) } }));
      } else {
        const nextStatus = reEnable ? 'active' : editing.status === 'failed' ? undefined : status;
        props.onUpdated(
          await call('webhooks:update', {
            environment,
            id: editing.id,
            patch: {
              url: url.trim(),
              events,
              description: description.trim() || null,
              ...(nextStatus && nextStatus !== editing.status ? { status: nextStatus } : {}),
            },
          }),
        );
      }
      clearError(SAVE_ERROR);
    } catch (err) {
      const fields = fieldErrors(err);
      setErrors(fields);
      // A refusal the form shows under its field needs no toast as well (it repeated the field's words).
      if (Object.keys(fields).length > 0) clearError(SAVE_ERROR);
      else notifyError(err, editing ? 'Could not save the webhook' : 'Could not create the webhook', SAVE_ERROR);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened={props.target !== null} onClose={props.onClose} title={editing ? 'Edit webhook' : 'Create webhook'} size="lg">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="webhook-form">
        <Stack>
          {editing?.status === 'failed' && (
            <Alert color="red" icon={<IconAlertTriangle size={18} />} title="Deliveries stopped" data-testid="webhook-failed-alert">
              <Stack gap="xs">
                <Text size="sm">
                  This webhook was marked failed after its deliveries kept failing. No events are queued for it until you re-enable
                  it; events that happened meanwhile are not redelivered.
                </Text>
                <Group>
                  <Button size="xs" color="green" loading={busy} data-testid="webhook-reenable" onClick={(e) => void submit(e, true)}>
                    Re-enable (save and set active)
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
          <TextInput
            data-testid="webhook-url-input"
            label="Endpoint URL"
            description={urlHelp(info?.developerOptions.allowWebhookHosts ?? [])}
            placeholder="https://example.com/hooks/verifications"
            required
            data-autofocus
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={errors.url}
          />
          <Checkbox.Group
            label="Events"
            description="Which events are sent to this endpoint."
            value={events}
            onChange={(v) => setEvents(WEBHOOK_EVENTS.filter((ev) => v.includes(ev)))}
            error={errors.events}
            data-testid="webhook-events"
          >
            <Stack gap={6} mt={6}>
              {WEBHOOK_EVENTS.map((ev) => (
                <Checkbox key={ev} value={ev} label={<Code>{ev}</Code>} description={EVENT_HELP[ev]} data-testid={`webhook-event-${ev}`} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Textarea
            data-testid="webhook-description-input"
            label="Description"
            placeholder="e.g. payouts-service production receiver"
            autosize
            minRows={2}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={errors.description}
          />
          {editing && editing.status !== 'failed' && (
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Status
              </Text>
              <SegmentedControl
                data-testid="webhook-status-control"
                value={status}
                onChange={(v) => setStatus(v === 'inactive' ? 'inactive' : 'active')}
                data={[
                  { value: 'active', label: 'Active' },
                  { value: 'inactive', label: 'Inactive (paused)' },
                ]}
              />
              <Text size="xs" c="dimmed">
                While inactive, events are not queued for this endpoint and are not sent later.
              </Text>
            </Stack>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" data-testid="webhook-submit" loading={busy}>
              {editing ? 'Save' : 'Create webhook'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export const SECRET_ONCE_WARNING =
  'Copy this signing secret now and store it with your receiver: you will not see it again. If you lose it, rotate the secret.';

/** What each header carries during the rotation overlap (docs/webhooks.md "Secret rotation"). */
export function RotationHeaders({ until }: { until: string | null }) {
  return (
    <Table withTableBorder fz="xs" data-testid="rotation-headers">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Header</Table.Th>
          <Table.Th>Until {until ? formatTime(until) : '24 h after rotating'}</Table.Th>
          <Table.Th>After that</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        <Table.Tr>
          <Table.Td>
            <Code>X-Signature</Code>
          </Table.Td>
          <Table.Td>old secret</Table.Td>
          <Table.Td>new secret</Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Td>
            <Code>webhook-signature</Code>
          </Table.Td>
          <Table.Td>new and old (two values)</Table.Td>
          <Table.Td>new secret</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

export function RevealSecretModal({
  revealed,
  onClose,
}: {
  revealed: { webhook: WebhookWithSecret & { previousSecret?: string | null }; rotated: boolean } | null;
  onClose: () => void;
}) {
  const previous = revealed?.rotated ? (revealed.webhook.previousSecret ?? null) : null;
  const until = revealed?.webhook.previousSecretExpiresAt ?? null;
  return (
    <Modal opened={revealed !== null} onClose={onClose} title={revealed?.rotated ? 'New signing secret' : 'Webhook created'} size="lg" closeOnClickOutside={false}>
      {revealed && (
        <Stack>
          <Text size="sm">
            Signing secret of <Code>{revealed.webhook.url}</Code>. Use it to check the <Code>X-Signature</Code> and{' '}
            <Code>webhook-signature</Code> headers of each delivery.
          </Text>
          {revealed.rotated && (
            <>
              <Text size="sm" data-testid="rotation-until">
                The old secret stops being used at <b>{until ? formatTime(until) : 'once (it could not be opened)'}</b>. Until then deliveries are
                signed as below: give your receiver <b>both</b> secrets (it accepts a delivery that verifies with either), then remove the old one
                after that moment.
              </Text>
              <RotationHeaders until={until} />
            </>
          )}
          <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="You will not see this secret again">
            {SECRET_ONCE_WARNING}
          </Alert>
          <SecretKey label={previous ? 'New secret' : undefined} value={revealed.webhook.secret} testId="revealed-webhook-secret" />
          {previous && (
            <>
              <SecretKey label={`Old secret (until ${until ? formatTime(until) : 'now'})`} value={previous} testId="revealed-previous-secret" />
              <CopyButton value={`${revealed.webhook.secret}\n${previous}\n`}>
                {({ copied, copy }) => (
                  <Button variant="light" size="xs" onClick={copy} data-testid="copy-both-secrets" leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}>
                    {copied ? 'Copied both' : 'Copy both (one per line, for --secrets-file or your receiver)'}
                  </Button>
                )}
              </CopyButton>
            </>
          )}
          <Group justify="flex-end">
            <Button data-testid="webhook-secret-done" onClick={onClose}>
              I have copied it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  color?: string;
  testId: string;
  onClose: () => void;
  onConfirm: () => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title}>
      <Stack>
        {props.children}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button
            color={props.color ?? 'red'}
            data-testid={props.testId}
            loading={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await props.onConfirm();
              } finally {
                setBusy(false);
              }
            }}
          >
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
