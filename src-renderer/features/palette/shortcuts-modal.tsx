// The console-wide hotkeys and the "Keyboard shortcuts" modal (`?`) that lists them, both from shortcuts.ts.
import { useRef } from 'react';
import { Group, Kbd, Modal, Table, Text } from '@mantine/core';
import { useHotkeys, type HotkeyItem } from '@mantine/hooks';
import { useNavigate } from 'react-router';
import { useConsole, type Section } from '../../app/store';
import { paths } from '../../app/routes';
import { allShortcuts, ENV_SHORTCUT, HELP_SHORTCUT, navShortcut, type NavEntry } from './shortcuts';

export function useConsoleHotkeys(nav: readonly NavEntry<Section>[], onHelp: () => void): void {
  const navigate = useNavigate();
  // The handlers are registered once: read the latest navigate through a ref.
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  const setSection = (s: Section) => void navigateRef.current(paths.section(s));
  const requestEnvironment = useConsole((s) => s.requestEnvironment);
  const environment = useConsole((s) => s.environment);
  const physical = { usePhysicalKeys: true };
  // Alt combinations type nothing, so they work wherever the focus is (a filter field, a closed dialog's button);
  // `?` is a character, so it is ignored while typing in a field.
  useHotkeys(
    [
      ...nav.flatMap((n, i): HotkeyItem[] => {
        const s = navShortcut(i);
        return s ? [[s.hotkey, () => setSection(n.section), physical]] : [];
      }),
      [ENV_SHORTCUT.hotkey, () => requestEnvironment(environment === 'live' ? 'sandbox' : 'live'), physical],
    ],
    [],
  );
  useHotkeys([[HELP_SHORTCUT.hotkey, onHelp, physical]]);
}

export function ShortcutsModal({ opened, onClose, nav }: { opened: boolean; onClose: () => void; nav: readonly NavEntry[] }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Keyboard shortcuts" data-testid="shortcuts-modal">
      <Table>
        <Table.Tbody>
          {allShortcuts(nav).map((s) => (
            <Table.Tr key={s.hotkey}>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {s.keys.map((k) => (
                    <Kbd key={k}>{k}</Kbd>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>{s.label}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed" mt="sm">
        Shortcuts are ignored while you type in a field. Esc closes any dialog.
      </Text>
    </Modal>
  );
}
