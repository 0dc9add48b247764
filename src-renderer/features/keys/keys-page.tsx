// API keys: list every key of the organization, create one (shown once), revoke one after confirmation.
import { useCallback, useEffect, useState } from 'react';
import { Badge, Box, Button, Code, EmptyState, Stack, Text } from '@mantine/core';
import { IconKey, IconPlus } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { ApiKey, CreatedKey } from '../../../src-shared/schemas/keys';
import { call } from '../../client/bridge';
import { formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { PageTitle } from '../../app/page-title';
import { ENV_COLOR } from '../../app/theme';
import { CreateKeyModal, RevealKeyModal, RevokeKeyModal } from './key-modals';


const WIDE = '(min-width: 75em)';
const MEDIUM = '(min-width: 62em)';
export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loading, setLoading] = useState(false);
  const [creating, setCreating] = useState(false);
  const [revealed, setRevealed] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const refresh = useCallback(async () => {
    setLoading(true);
    try {
      setKeys(await call('keys:list', {}));
    } catch (e) {
      notifyError(e, 'Could not load API keys');
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <Stack>
      <PageTitle
        title="API keys"
        actions={
          <Button data-testid="create-key-button" leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            Create key
          </Button>
        }
      />
      <Text c="dimmed" size="sm">
        Send a key as <Code>Authorization: Bearer &lt;key&gt;</Code> or <Code>X-API-Key</Code>. A key only works in its own environment.
        Checks run from this console act as your user, not through a key, so they never change a key’s last use.
      </Text>
      {keys !== null && keys.length === 0 ? (
        <EmptyState
          data-testid="keys-empty"
          icon={<IconKey size={28} />}
          title="No API keys yet"
          description="Create a key for each environment your integration uses: sandbox for tests, live for real checks."
        >
          <EmptyState.Actions>
            <Button onClick={() => setCreating(true)}>Create your first key</Button>
          </EmptyState.Actions>
        </EmptyState>
      ) : (
        <Box data-testid="keys-table">
          <DataTable<ApiKey>
            withTableBorder
            borderRadius="sm"
            highlightOnHover
            minHeight={keys === null ? 160 : undefined}
            fetching={loading && keys === null}
            records={keys ?? []}
            idAccessor="id"
            noRecordsText="No API keys"
            customRowAttributes={(k) => ({ 'data-testid': `key-row-${k.id}`, 'data-status': k.status })}
            columns={[
              { accessor: 'name', title: 'Name', render: (k) => <Text fw={500}>{k.name}</Text> },
              {
                accessor: 'environment',
                title: 'Environment',
                render: (k) => (
                  <Badge color={ENV_COLOR[k.environment]} variant="light">
                    {k.environment}
                  </Badge>
                ),
              },
              { accessor: 'keyPrefix', title: 'Key', render: (k) => <Code>{k.keyPrefix}…</Code> },
              {
                accessor: 'status',
                title: 'Status',
                render: (k) => (
                  <Badge color={k.status === 'active' ? 'green' : 'gray'} variant={k.status === 'active' ? 'light' : 'outline'}>
                    {k.status}
                  </Badge>
                ),
              },
              // Secondary columns give way on narrow windows; name, status and the action never do.
              { accessor: 'createdAt', title: 'Created', visibleMediaQuery: WIDE, render: (k) => formatTime(k.createdAt) },
              { accessor: 'lastUsedAt', title: 'Last API use', visibleMediaQuery: MEDIUM, render: (k) => formatTime(k.lastUsedAt, 'never') },
              {
                accessor: 'actions',
                title: '',
                textAlign: 'right',
                render: (k) => (
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    data-testid={`revoke-${k.id}`}
                    disabled={k.status === 'revoked'}
                    onClick={() => setRevoking(k)}
                  >
                    {k.status === 'revoked' ? 'Revoked' : 'Revoke'}
                  </Button>
                ),
              },
            ]}
          />
        </Box>
      )}

      <CreateKeyModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(k) => {
          setCreating(false);
          setRevealed(k);
          void refresh();
        }}
      />
      <RevealKeyModal created={revealed} onClose={() => setRevealed(null)} />
      <RevokeKeyModal
        apiKey={revoking}
        onClose={() => setRevoking(null)}
        onConfirm={async (k) => {
          try {
            await call('keys:revoke', { id: k.id });
            notifySuccess(`Key “${k.name}” was revoked. Requests using it are now refused.`);
            setRevoking(null);
            await refresh();
          } catch (e) {
            notifyError(e, 'Could not revoke the key');
          }
        }}
      />
    </Stack>
  );
}
