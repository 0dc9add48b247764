// The Settings page: service settings, theme, developer options, users and roles, and the configuration file.
import { useCallback, useEffect, useState } from 'react';
import { Button, Center, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { PageTitle } from '../../app/page-title';
import type { ManagedUser, SettingsView } from '../../../src-shared/schemas/settings';
import { call, ConsoleError } from '../../client/bridge';
import { ConfigTransferCard } from './config-transfer';
import { ErrorAlert } from './error-alert';
import { DataFolderCard, DeveloperOptionsCard, ListenerCard, RateLimitCard, ThemeCard } from './service-settings';
import { UsersPanel } from './users-panel';
import { BackupsPanel } from './backups-panel';
import { DemoPanel } from './demo-panel';

export function SettingsPage() {
  const [view, setView] = useState<SettingsView | null>(null);
  const [users, setUsers] = useState<ManagedUser[] | 'hidden' | null>(null);
  const [error, setError] = useState<unknown>(null);

  const loadUsers = useCallback(async () => {
    try {
      setUsers(await call('users:list', {}));
    } catch (e) {
      // A developer does not see the panel at all (decisions §6); any other failure is shown.
      if (e instanceof ConsoleError && e.code === 'FORBIDDEN') setUsers('hidden');
      else setError(e);
    }
  }, []);

  const load = useCallback(async () => {
    setError(null);
    try {
      setView(await call('settings:get', {}));
    } catch (e) {
      setError(e);
    }
    await loadUsers();
  }, [loadUsers]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Stack gap="md" data-testid="settings-page">
      <PageTitle title="Settings" />
      {error !== null && (
        <Stack gap="xs">
          <ErrorAlert error={error} title="Settings could not be loaded" />
          <div>
            <Button variant="default" onClick={() => void load()}>
              Retry
            </Button>
          </div>
        </Stack>
      )}
      {view === null && error === null && (
        <Center p="xl">
          <Loader />
        </Center>
      )}
      {view && (
        <>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <ListenerCard view={view} onSaved={setView} />
            <RateLimitCard view={view} onSaved={setView} />
            <DataFolderCard dataDir={view.dataDir} />
            <ThemeCard />
          </SimpleGrid>
          <DeveloperOptionsCard options={view.developerOptions} />
        </>
      )}
      {Array.isArray(users) && <UsersPanel users={users} onChanged={() => void loadUsers()} />}
      {users === 'hidden' && (
        <Text size="sm" c="dimmed">
          Users and roles are managed by owners and admins.
        </Text>
      )}
      <BackupsPanel />
      <DemoPanel />
      <ConfigTransferCard onImported={() => void load()} />
    </Stack>
  );
}
