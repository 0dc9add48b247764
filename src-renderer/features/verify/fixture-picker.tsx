// "Fill from sandbox fixture" for every verify tab: the documented sandbox requests of one kind, each with the
// answer it is known to produce, the selected country's first (that is almost always what the user is after).
import { useEffect, useMemo, useState } from 'react';
import { Button, Menu, ScrollArea, Text } from '@mantine/core';
import { IconChevronDown, IconFlask } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { call } from '../../client/bridge';
import { notifyError } from '../../app/notify';

// One request per console session: the list is static for a given service version.
let cached: Promise<SandboxFixture[]> | null = null;
function loadFixtures(): Promise<SandboxFixture[]> {
  cached ??= call('sandbox:fixtures', {}).catch((e: unknown) => {
    cached = null;
    throw e;
  });
  return cached;
}

/**
 * `bareTestIds`: the bank-account form's menu predates the other kinds and keeps its unqualified test ids
 * (`fixture-menu`, `fixture-<i>`); the others are `fixture-menu-<kind>` and `fixture-<kind>-<i>`.
 */
export function FixturePicker({
  kind,
  onPick,
  country,
  bareTestIds = false,
}: {
  kind: string;
  onPick: (f: SandboxFixture) => void;
  country?: string;
  bareTestIds?: boolean;
}) {
  const [fixtures, setFixtures] = useState<SandboxFixture[] | null>(null);
  useEffect(() => {
    let live = true;
    loadFixtures()
      .then((all) => live && setFixtures(all.filter((f) => f.kind === kind)))
      .catch((e: unknown) => notifyError(e, 'Could not load sandbox fixtures'));
    return () => {
      live = false;
    };
  }, [kind]);
  const sorted = useMemo(
    () => [...(fixtures ?? [])].sort((a, b) => Number(b.country === country) - Number(a.country === country) || a.country.localeCompare(b.country)),
    [fixtures, country],
  );
  return (
    <Menu position="bottom-end" width={440} shadow="md">
      <Menu.Target>
        <Button
          variant="light"
          leftSection={<IconFlask size={16} />}
          rightSection={<IconChevronDown size={14} />}
          data-testid={bareTestIds ? 'fixture-menu' : `fixture-menu-${kind}`}
          disabled={!fixtures?.length}
        >
          Fill from sandbox fixture
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Known sandbox {kind} requests and their answers</Menu.Label>
        <ScrollArea.Autosize mah={420} type="auto">
          {sorted.map((f, i) => (
            <Menu.Item key={i} onClick={() => onPick(f)} data-testid={bareTestIds ? `fixture-${i}` : `fixture-${kind}-${i}`} data-country={f.country} data-expected={f.expected.status}>
              <Text size="sm">
                <b>{f.country}</b> · {f.description}
              </Text>
              <Text size="xs" c="dimmed">
                expects {f.expected.status}
                {f.expected.errorCode ? ` (${f.expected.errorCode})` : ''}
              </Text>
            </Menu.Item>
          ))}
        </ScrollArea.Autosize>
      </Menu.Dropdown>
    </Menu>
  );
}
