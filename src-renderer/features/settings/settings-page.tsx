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
import { useCan } from '../../app/app-info';

export function SettingsPage() {
  // A signed-in team user sees only the panels their role may use (src-shared/channel-roles.ts); the service refuses
  // the rest whatever the page shows.
  const can = useCan();
  const [view, setView] = useState<SettingsView | null>(null);
  const [users, setUsers] = useState<ManagedUser[] | 'hidden' | null>(null);
  const [error, setError] = useState<unknown>(null);

  const loadUsers = useCallback(async () => {
    if (!can('users:list')) {
      setUsers('hidden');
      return;
    }
    try {
      setUsers(await call('users:list', {}));
    } catch (e) {
      // A developer does not see the panel at all (decisions §6); any other failure is shown.
      if (e instanceof ConsoleError && e.code === 'FORBIDDEN') setUsers('hidden');
      else setError(e);
    }
  }, [can]);

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
            <ListenerCard view={view} onSaved={setView} readOnly={!can('settings:update')} />
            <RateLimitCard view={view} onSaved={setView} readOnly={!can('settings:update')} />
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
      {can('backups:list') && <BackupsPanel />}
      {can('demo:load') && <DemoPanel />}
      {can('config:export') && <ConfigTransferCard onImported={() => void load()} />}
    </Stack>
  );
}
