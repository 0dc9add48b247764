// Users and roles (owners and admins only): the list, a create dialog with a temporary password, role changes and
// deactivation. The service enforces the rules (decisions §6); the panel explains them and shows its refusals.
import { useState } from 'react';
import { Badge, Button, Group, Menu, Modal, Paper, PasswordInput, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconDots, IconUserPlus } from '@tabler/icons-react';
import type { Role } from '../../../src-shared/schemas/auth';
import { PASSWORD_MIN } from '../../../src-shared/schemas/auth';
import { CreateUserInputSchema, type ManagedUser } from '../../../src-shared/schemas/settings';
import { call } from '../../client/bridge';
import { placeDetails } from '../../app/field-errors';
import { formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { ErrorAlert } from './error-alert';

const ROLES: { value: Role; label: string }[] = [
  { value: 'OWNER', label: 'Owner — everything, including owners and the wallet' },
  { value: 'ADMIN', label: 'Admin — keys, users (not owners), configuration' },
  { value: 'DEVELOPER', label: 'Developer — checks and webhooks' },
];
const ROLE_COLOR: Record<Role, string> = { OWNER: 'grape', ADMIN: 'blue', DEVELOPER: 'gray' };

const USER_FIELDS: ReadonlySet<string> = new Set(['email', 'password']);

function CreateUserModal({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (u: ManagedUser) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('DEVELOPER');
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit() {
    const parsed = CreateUserInputSchema.safeParse({ email, password, role });
    if (!parsed.success) {
      const f = new Set(parsed.error.issues.map((i) => String(i.path[0])));
      setErrors({
        ...(f.has('email') ? { email: 'An email address, e.g. analyst@company.com.' } : {}),
        ...(f.has('password') ? { password: `At least ${PASSWORD_MIN} characters.` } : {}),
      });
      return;
    }
    setErrors({});
    setBusy(true);
    setError(null);
    try {
      const u = await call('users:create', parsed.data);
      notifySuccess(`${u.email} can sign in with the temporary password. Share it privately.`, 'User created');
      setEmail('');
      setPassword('');
      onCreated(u);
    } catch (e) {
      // A refusal of a field the form shows (an email already used) is said under that field, in words; the alert
      // is for the rest.
      const placed = placeDetails(e, USER_FIELDS);
      if (Object.keys(placed.under).length > 0 && placed.rest.length === 0) setErrors(placed.under);
      else setError(e);
    } finally {
      setBusy(false);
    }
  }

  // Closing forgets the attempt: reopened, the dialog starts empty, without the last refusal's alert or field errors.
  function close() {
    setEmail('');
    setPassword('');
    setRole('DEVELOPER');
    setErrors({});
    setError(null);
    onClose();
  }

  return (
    <Modal opened={opened} onClose={close} title="Add a user" centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          <TextInput label="Email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={errors.email} data-testid="user-email" autoComplete="off" />
          <PasswordInput
            label="Temporary password"
            description={`At least ${PASSWORD_MIN} characters; give it to the person privately.`}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password}
            data-testid="user-password"
            autoComplete="new-password"
          />
          <Select label="Role" data={ROLES} value={role} onChange={(v) => v && setRole(v as Role)} allowDeselect={false} data-testid="user-role" />
          <ErrorAlert error={error} title="The user was not created" testId="user-create-error" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} data-testid="user-create-submit">
              Create user
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function UsersPanel({ users, onChanged }: { users: ManagedUser[]; onChanged: () => void }) {
  const [creating, setCreating] = useState(false);

  async function act(done: string, failed: string, fn: () => Promise<ManagedUser>) {
    try {
      const u = await fn();
      notifySuccess(`${u.email}: ${done}.`);
      onChanged();
    } catch (e) {
      notifyError(e, failed);
    }
  }

  return (
    <Paper withBorder p="md" data-testid="users-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <div>
            <Title order={4}>Users and roles</Title>
            <Text size="sm" c="dimmed">
              Only an owner manages owners, and the organization always keeps one active owner. A role change or a deactivation signs the user out
              everywhere.
            </Text>
          </div>
          <Button leftSection={<IconUserPlus size={16} />} onClick={() => setCreating(true)} data-testid="user-add">
            Add user
          </Button>
        </Group>
        {users.length === 0 ? (
          <Text size="sm" c="dimmed">
            No users yet. Add one to let a colleague sign in to the API.
          </Text>
        ) : (
          <Table striped highlightOnHover data-testid="users-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.map((u) => (
                <Table.Tr key={u.id} data-testid={`user-row-${u.email}`}>
                  <Table.Td>{u.email}</Table.Td>
                  <Table.Td>
                    <Badge color={ROLE_COLOR[u.role]} variant="light">
                      {u.role}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={u.status === 'active' ? 'green' : 'gray'} variant="dot">
                      {u.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{formatTime(u.createdAt)}</Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <Button variant="subtle" size="xs" aria-label={`Actions for ${u.email}`} data-testid={`user-actions-${u.email}`}>
                          <IconDots size={16} />
                        </Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Label>Change role</Menu.Label>
                        {ROLES.filter((r) => r.value !== u.role).map((r) => (
                          <Menu.Item key={r.value} onClick={() => void act(`now ${r.value}`, `Could not make ${u.email} ${r.value.toLowerCase()}`, () => call('users:setRole', { id: u.id, role: r.value }))}>
                            Make {r.value.toLowerCase()}
                          </Menu.Item>
                        ))}
                        <Menu.Divider />
                        {u.status === 'active' ? (
                          <Menu.Item color="red" onClick={() => void act('deactivated', `Could not deactivate ${u.email}`, () => call('users:deactivate', { id: u.id }))}>
                            Deactivate
                          </Menu.Item>
                        ) : (
                          <Menu.Item onClick={() => void act('reactivated', `Could not reactivate ${u.email}`, () => call('users:reactivate', { id: u.id }))}>Reactivate</Menu.Item>
                        )}
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
      <CreateUserModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={() => {
          setCreating(false);
          onChanged();
        }}
      />
    </Paper>
  );
}
