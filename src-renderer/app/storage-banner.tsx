// The storage banner: while the service cannot write to its data folder (disk full, read-only), every page says so
// once, naming the folder and its free space (docs/reliability.md, "Storage faults"). It looks when the console
// opens, when any answer says STORAGE_UNAVAILABLE, when the window regains focus, and on "Check again".
import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconDatabaseOff } from '@tabler/icons-react';
import type { StorageStatus } from '../../src-shared/schemas/backups';
import { call, onStorageFault } from '../client/bridge';

export function StorageBanner() {
  const [status, setStatus] = useState<StorageStatus | null>(null);
  const check = useCallback(async () => {
    try {
      setStatus(await call('storage:status', {}));
    } catch {
      // The banner is advisory: a failed look leaves the last known state.
    }
  }, []);
  useEffect(() => {
    void check();
    const off = onStorageFault(() => void check());
    const onFocus = () => void check();
    window.addEventListener('focus', onFocus);
    return () => {
      off();
      window.removeEventListener('focus', onFocus);
    };
  }, [check]);
  if (!status || status.status === 'ok') return null;
  return (
    <Alert color="red" variant="light" icon={<IconDatabaseOff size={18} aria-hidden />} title="The service cannot save anything right now" data-testid="storage-banner">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Text size="sm">{status.message}</Text>
        <Button size="xs" variant="default" onClick={() => void check()}>
          Check again
        </Button>
      </Group>
    </Alert>
  );
}
