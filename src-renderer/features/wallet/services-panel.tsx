// Enabled services: one switch per billable service. A live check of a disabled service is refused
// (SERVICE_NOT_ENABLED), so the switch is the first gate of decisions §9.
import { useState } from 'react';
import { Accordion, Badge, Group, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { SERVICE_GROUPS } from './service-catalogue';
import { useCan } from '../../app/app-info';


const groupId = (group: string) => group.toLowerCase().replace(/[^a-z0-9]+/g, '-');
export function ServicesPanel({ enabled, priced, onChanged }: { enabled: string[] | null; priced: ReadonlySet<string>; onChanged: (enabled: string[]) => void }) {
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState('');
  // A signed-in developer sees which services are on, without the switches working (admins decide).
  const mayToggle = useCan()('services:enable');
  const on = new Set(enabled ?? []);
  const q = filter.trim().toLowerCase();

  async function toggle(service: string, next: boolean) {
    setPending((p) => new Set(p).add(service));
    try {
      const r = await call(next ? 'services:enable' : 'services:disable', { service });
      const set = new Set(on);
      if (r.enabled) set.add(r.service);
      else set.delete(r.service);
      onChanged([...set].sort());
    } catch (e) {
      notifyError(e, `Could not ${next ? 'enable' : 'disable'} ${service}`);
    } finally {
      setPending((p) => {
        const n = new Set(p);
        n.delete(service);
        return n;
      });
    }
  }

  const groups = SERVICE_GROUPS.map((g) => ({
    ...g,
    services: g.services.filter((s) => !q || s.key.toLowerCase().includes(q) || s.label.toLowerCase().includes(q)),
    count: g.services.filter((s) => on.has(s.key)).length,
    total: g.services.length,
  }));
  return (
    <Paper withBorder p="md" data-testid="services-panel">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end">
          <div>
            <Title order={4}>Enabled services</Title>
            <Text size="sm" c="dimmed">
              Live checks of a service that is not enabled are refused (SERVICE_NOT_ENABLED). {on.size === 0 && 'Nothing is enabled yet: switch on the services you sell.'}
            </Text>
          </div>
          <TextInput
            leftSection={<IconSearch size={14} />}
            placeholder="Filter services"
            aria-label="Filter services"
            value={filter}
            onChange={(e) => setFilter(e.currentTarget.value)}
            w={220}
            data-testid="services-filter"
          />
        </Group>
        {/* Item values become element ids (aria-controls): no spaces in them. */}
        <Accordion multiple defaultValue={[groupId('Other checks')]} variant="separated">
          {groups.map((g) => (
            <Accordion.Item key={g.group} value={groupId(g.group)}>
              <Accordion.Control>
                <Group gap="xs">
                  <Text fw={500}>{g.group}</Text>
                  <Badge size="sm" variant="light" color={g.count ? 'green' : 'gray'}>
                    {g.count} of {g.total} enabled
                  </Badge>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                {g.services.length === 0 ? (
                  <Text size="sm" c="dimmed">
                    No service in this group matches “{filter}”.
                  </Text>
                ) : (
                  <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="xs">
                    {g.services.map((s) => (
                      <Switch
                        key={s.key}
                        data-testid={`service-switch-${s.key}`}
                        checked={on.has(s.key)}
                        disabled={!mayToggle || enabled === null || pending.has(s.key)}
                        onChange={(e) => void toggle(s.key, e.currentTarget.checked)}
                        label={s.label}
                        description={
                          <>
                            {s.key}
                            {on.has(s.key) && !priced.has(s.key) ? ' · no price set' : ''}
                          </>
                        }
                      />
                    ))}
                  </SimpleGrid>
                )}
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      </Stack>
    </Paper>
  );
}
