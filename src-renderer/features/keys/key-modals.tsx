// The three key dialogs: create (name + environment), reveal (the full key, once) and revoke (confirmation).
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Code, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Environment } from '../../../src-shared/schemas/common';
import type { ApiKey, CreatedKey } from '../../../src-shared/schemas/keys';
import { ConsoleError, call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { useConsole } from '../../app/store';
import { ONCE_ONLY_WARNING, SecretKey } from './secret-key';
import { KEY_NAME_MAX } from '../../../src-shared/schemas/keys';

export function CreateKeyModal(props: { opened: boolean; onClose: () => void; onCreated: (k: CreatedKey) => void }) {
  const current = useConsole((s) => s.environment);
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>(current);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (props.opened) {
      setName('');
      setEnvironment(current);
      setError(undefined);
    }
  }, [props.opened, current]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (name.trim() === '') return setError('Give the key a name, e.g. the service that will use it.');
    if (name.trim().length > KEY_NAME_MAX) return setError(`Use at most ${KEY_NAME_MAX} characters.`);
    setBusy(true);
    try {
      props.onCreated(await call('keys:create', { name: name.trim(), environment }));
    } catch (err) {
      if (err instanceof ConsoleError) setError(err.details.find((d) => d.field === 'name')?.message);
      notifyError(err, 'Could not create the key');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Create API key">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack>
          <TextInput
            data-testid="key-name-input"
            label="Name"
            description="What will use this key, e.g. “payouts-service”."
            required
            data-autofocus
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={error}
          />
          <Select
            data-testid="key-environment-select"
            label="Environment"
            allowDeselect={false}
            value={environment}
            onChange={(v) => v && setEnvironment(v as Environment)}
            data={[
              { value: 'sandbox', label: 'Sandbox — test data, never charged' },
              { value: 'live', label: 'Live — real checks, charged' },
            ]}
            comboboxProps={{ withinPortal: true }}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" data-testid="create-key-submit" loading={busy}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function RevealKeyModal({ created, onClose }: { created: CreatedKey | null; onClose: () => void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="Your new API key" size="lg" closeOnClickOutside={false}>
      {created && (
        <Stack>
          <Text>
            Key <b>{created.name}</b> for the <b>{created.environment}</b> environment.
          </Text>
          <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="You will not see this key again">
            {ONCE_ONLY_WARNING}
          </Alert>
          <SecretKey value={created.key} />
          <Group justify="flex-end">
            <Button data-testid="reveal-done" onClick={onClose}>
              I have copied it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function RevokeKeyModal(props: { apiKey: ApiKey | null; onClose: () => void; onConfirm: (k: ApiKey) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const k = props.apiKey;
  return (
    <Modal opened={k !== null} onClose={props.onClose} title="Revoke API key">
      {k && (
        <Stack>
          <Text>
            Revoke <b>{k.name}</b> (<Code>{k.keyPrefix}…</Code>, {k.environment})? Every request that uses it will be refused from
            now on. This cannot be undone.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button
              color="red"
              data-testid="confirm-revoke"
              loading={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await props.onConfirm(k);
                } finally {
                  setBusy(false);
                }
              }}
            >
              Revoke {k.name}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
