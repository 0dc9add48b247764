// Settings › Backups: the backups in the data folder, "Back up now", the automatic schedule, and Restore — which
// the service carries out at its next start (it cannot replace the store it is running on). Also says plainly
// which file a backup does not carry: the sealing key.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Checkbox, Code, Group, Modal, NumberInput, Paper, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconDatabaseExport, IconRestore } from '@tabler/icons-react';
import { BACKUP_EVERY_HOURS_MAX, BACKUP_KEEP_MAX, type BackupInfo, type BackupsOverview } from '../../../src-shared/schemas/backups';
import { call } from '../../client/bridge';
import { formatBytes, formatTime } from '../../app/format';
import { notifySuccess } from '../../app/notify';
import { ErrorAlert } from './error-alert';
import { numberFieldValue } from './number-field';
import { useAppInfo } from '../../app/app-info';
import { mayBackUpWithKey } from '../../../src-shared/channel-roles';

function RestoreDialog({ backup, onClose, onScheduled }: { backup: BackupInfo | null; onClose: () => void; onScheduled: (o: BackupsOverview) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Modal opened={backup !== null} onClose={onClose} title="Restore this backup?" centered>
      {backup && (
        <Stack gap="sm">
          <Text size="sm">
            The store will be replaced by <Code>{backup.name}</Code> ({formatTime(backup.createdAt)}) at the next start of the service. Everything recorded
            after that backup — checks, charges, deliveries, users, keys — will no longer be in the store. The current files are kept aside in the data
            folder, not deleted.
          </Text>
          <Text size="sm">After confirming, restart the service (quit and reopen the app, or stop and start `vconsole serve`).</Text>
          {error !== null && <ErrorAlert error={error} title="The restore could not be scheduled" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={busy}
              data-testid="confirm-restore"
              onClick={async () => {
                setBusy(true);
                setError(null);
                try {
                  onScheduled(await call('backups:restoreAtRestart', { name: backup.name }));
                  onClose();
                } catch (e) {
                  setError(e);
                } finally {
                  setBusy(false);
                }
              }}
            >
              Restore at next start
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function BackupsPanel() {
  const [view, setView] = useState<BackupsOverview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [includeKey, setIncludeKey] = useState(false);
  // A backup with the sealing key is an owner's to make (src-shared/channel-roles.ts); a team admin backs up without it.
  const info = useAppInfo();
  const mayIncludeKey = !info?.user || mayBackUpWithKey(info.user.role);
  const [everyHours, setEveryHours] = useState<number | string>(24);
  const [keep, setKeep] = useState<number | string>(7);
  const [fieldErrors, setFieldErrors] = useState<{ everyHours?: string; keep?: string }>({});
  const [restoring, setRestoring] = useState<BackupInfo | null>(null);

  const show = useCallback((o: BackupsOverview) => {
    setView(o);
    setEveryHours(o.schedule.everyHours);
    setKeep(o.schedule.keep);
  }, []);

  const load = useCallback(async () => {
    try {
      show(await call('backups:list', {}));
    } catch (e) {
      setError(e);
    }
  }, [show]);

  useEffect(() => {
    void load();
  }, [load]);

  async function backUpNow() {
    setBusy(true);
    setError(null);
    try {
      const made = await call('backups:create', { includeKey: includeKey && mayIncludeKey });
      notifySuccess(`${made.name} (${formatBytes(made.bytes)}) written and verified.`, 'Backup made');
      await load();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  async function saveSchedule() {
    setError(null);
    // Checked here, in words, before anything is sent: an empty field is not 0 (0 hours turns the schedule off).
    const hours = numberFieldValue(everyHours);
    const kept = numberFieldValue(keep);
    const errors = {
      ...(hours === null || !Number.isInteger(hours) || hours < 0 || hours > BACKUP_EVERY_HOURS_MAX
        ? { everyHours: `Whole hours only, up to ${BACKUP_EVERY_HOURS_MAX}; 0 turns automatic backups off.` }
        : {}),
      ...(kept === null || !Number.isInteger(kept) || kept < 1 || kept > BACKUP_KEEP_MAX ? { keep: `Keep at least 1 backup (a whole number up to ${BACKUP_KEEP_MAX}).` } : {}),
    };
    setFieldErrors(errors);
    if (hours === null || kept === null || errors.everyHours || errors.keep) return;
    try {
      show(await call('backups:schedule', { everyHours: hours, keep: kept }));
      notifySuccess('Backup schedule saved.');
    } catch (e) {
      setError(e);
    }
  }

  return (
    <Paper withBorder p="md" data-testid="backups-panel">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={3} size="h4">
            Backups
          </Title>
          <Group gap="xs">
            {mayIncludeKey && <Checkbox label="Include the sealing key" checked={includeKey} onChange={(e) => setIncludeKey(e.currentTarget.checked)} />}
            <Button leftSection={<IconDatabaseExport size={16} aria-hidden />} loading={busy} onClick={() => void backUpNow()} data-testid="backup-now">
              Back up now
            </Button>
          </Group>
        </Group>
        {error !== null && <ErrorAlert error={error} title="Backups" />}
        {view && (
          <>
            <Text size="sm" c="dimmed">
              Kept in <Code>{view.dir}</Code>. Each backup is checked for integrity before it is listed. {view.keyNote}
            </Text>
            {view.pendingRestore && (
              <Alert color="orange" title="A restore is scheduled" data-testid="pending-restore">
                <Stack gap={6}>
                  <Text size="sm">
                    <Code>{view.pendingRestore.file}</Code> replaces the store at the next start of the service. Restart it to apply.
                  </Text>
                  <div>
                    <Button size="xs" variant="default" onClick={async () => show(await call('backups:cancelRestore', {}))}>
                      Cancel the restore
                    </Button>
                  </div>
                </Stack>
              </Alert>
            )}
            {view.lastRestore && (
              <Alert color={view.lastRestore.ok ? 'teal' : 'red'} title={view.lastRestore.ok ? 'Last restore done' : 'Last restore failed'}>
                <Text size="sm">
                  {formatTime(view.lastRestore.at)}: {view.lastRestore.message}
                </Text>
              </Alert>
            )}
            <Group align="flex-end" gap="sm" wrap="wrap">
              <NumberInput
                label="Back up every (hours; 0 = off)"
                min={0}
                max={BACKUP_EVERY_HOURS_MAX}
                clampBehavior="none"
                value={everyHours}
                onChange={(v) => { setEveryHours(v); setFieldErrors((f) => ({ ...f, everyHours: undefined })); }}
                error={fieldErrors.everyHours}
                disabled={view.schedule.fromFlags}
                w={220}
                data-testid="backup-every-hours"
              />
              <NumberInput
                label="Automatic backups kept"
                min={1}
                max={BACKUP_KEEP_MAX}
                clampBehavior="none"
                value={keep}
                onChange={(v) => { setKeep(v); setFieldErrors((f) => ({ ...f, keep: undefined })); }}
                error={fieldErrors.keep}
                disabled={view.schedule.fromFlags}
                w={200}
                data-testid="backup-keep"
              />
              <Button variant="default" onClick={() => void saveSchedule()} disabled={view.schedule.fromFlags}>
                Save schedule
              </Button>
            </Group>
            {view.schedule.fromFlags && (
              <Text size="xs" c="dimmed">
                Set for this run by `--backup-every` / `--backup-keep`.
              </Text>
            )}
            {view.backups.length === 0 ? (
              <Text size="sm" c="dimmed">
                No backups yet.
              </Text>
            ) : (
              <Table.ScrollContainer minWidth={480}>
                <Table striped data-testid="backups-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Backup</Table.Th>
                      <Table.Th>Made</Table.Th>
                      <Table.Th>Size</Table.Th>
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {view.backups.map((b) => (
                      <Table.Tr key={b.name}>
                        <Table.Td>
                          <Group gap={6} wrap="nowrap">
                            <Text size="sm" ff="monospace" truncate="end" maw={320} title={b.name}>
                              {b.name}
                            </Text>
                            <Badge size="xs" variant="light" color={b.auto ? 'gray' : 'blue'}>
                              {b.auto ? 'automatic' : 'by hand'}
                            </Badge>
                            {b.hasKey && (
                              <Badge size="xs" variant="light" color="orange">
                                + key
                              </Badge>
                            )}
                          </Group>
                        </Table.Td>
                        <Table.Td>{formatTime(b.createdAt)}</Table.Td>
                        <Table.Td>{formatBytes(b.bytes)}</Table.Td>
                        <Table.Td>
                          <Button size="xs" variant="subtle" color="red" leftSection={<IconRestore size={14} aria-hidden />} onClick={() => setRestoring(b)}>
                            Restore…
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </>
        )}
      </Stack>
      <RestoreDialog backup={restoring} onClose={() => setRestoring(null)} onScheduled={show} />
    </Paper>
  );
}
