// The command palette (Ctrl/⌘+K, Mantine Spotlight): every page of the navigation, the environment switch, the
// page actions people reach for (create a key, top up), and every runnable sandbox fixture, run in place or opened
// in the Verify form to look at (or change) before submitting.
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Badge, Button, Group, Kbd, Modal, Stack, Text } from '@mantine/core';
import { Spotlight, type SpotlightActionGroupData } from '@mantine/spotlight';
import { IconArrowsExchange, IconEdit, IconFlask, IconKeyboard, IconKey, IconPlus, IconSearch, IconRoute2 } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { notifyError } from '../../app/notify';
import { useNavigate } from 'react-router';
import { useConsole, type Section } from '../../app/store';
import { paths } from '../../app/routes';
import { ENV_LABEL } from '../../app/environment';
import { ENV_COLOR } from '../../app/theme';
import { VerificationResult, type PartialRecord } from '../verify/verification-result';
import { paletteFilter } from './palette-filter';
import { idInQuery, openById } from './open-by-id';
import { startDemoTour, tourSummary } from '../tour/demo-tour';
import { isRunnable, loadRunnableFixtures, runFixture, type RunnableKind } from './run-fixture';
import { ENV_SHORTCUT, HELP_SHORTCUT, navShortcut } from './shortcuts';
import { useCan } from '../../app/app-info';

export interface PaletteNavEntry {
  section: Section;
  label: string;
  icon: ReactNode;
}

function Keys({ keys }: { keys: string[] }) {
  return (
    <Group gap={2} wrap="nowrap">
      {keys.map((k) => (
        <Kbd key={k} size="xs">
          {k}
        </Kbd>
      ))}
    </Group>
  );
}

/**
 * The pages own their dialogs; the palette opens the page and presses the page's own button once it is on
 * screen, so there is one way to create a key or top up, whether by mouse or from here.
 */
function pressWhenReady(testId: string, timeoutMs = 10_000): void {
  const find = () => document.querySelector<HTMLElement>(`[data-testid="${testId}"]:not([disabled])`);
  const now = find();
  if (now) return now.click();
  const observer = new MutationObserver(() => {
    const el = find();
    if (!el) return;
    observer.disconnect();
    clearTimeout(timer);
    el.click();
  });
  const timer = setTimeout(() => observer.disconnect(), timeoutMs);
  observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
}

export function CommandPalette({ nav, onShowShortcuts }: { nav: readonly PaletteNavEntry[]; onShowShortcuts: () => void }) {
  const environment = useConsole((s) => s.environment);
  const navigate = useNavigate();
  const setSection = useCallback((s: Section) => void navigate(paths.section(s)), [navigate]);
  const requestEnvironment = useConsole((s) => s.requestEnvironment);
  const openVerify = useConsole((s) => s.openVerify);
  const [fixtures, setFixtures] = useState<SandboxFixture[]>([]);
  const [query, setQuery] = useState('');
  const typedId = idInQuery(query);
  const [running, setRunning] = useState<{ fixture: SandboxFixture; result: PartialRecord | null } | null>(null);

  useEffect(() => {
    let live = true;
    loadRunnableFixtures()
      .then((all) => live && setFixtures(all))
      // Without fixtures the palette still navigates; say why the fixture entries are missing.
      .catch((e: unknown) => notifyError(e, 'Could not load sandbox fixtures for the palette'));
    return () => {
      live = false;
    };
  }, []);

  async function run(fixture: SandboxFixture) {
    setRunning({ fixture, result: null });
    try {
      const result = await runFixture(fixture);
      setRunning({ fixture, result });
    } catch (e) {
      setRunning(null);
      notifyError(e, 'The sandbox check was not accepted');
    }
  }

  const openInVerify = useCallback(
    (f: SandboxFixture & { kind: RunnableKind }) => {
      openVerify({ kind: f.kind, request: f.request, label: `the sandbox fixture “${f.kind} ${f.country}: ${f.description}”` });
      void navigate(paths.verify(f.kind));
    },
    [openVerify, navigate],
  );

  // A signed-in team user is offered only the actions their role may take (src-shared/channel-roles.ts).
  const can = useCan();
  const actions = useMemo<SpotlightActionGroupData[]>(() => {
    const other = environment === 'live' ? 'sandbox' : 'live';
    const byId: SpotlightActionGroupData[] = typedId
      ? [
          {
            group: 'Open by id',
            actions: [
              {
                id: 'open-id',
                label: typedId,
                description: 'Open this verification, delivery, webhook or key',
                leftSection: <IconSearch size={18} />,
                onClick: () => void openById(typedId, (to) => void navigate(to)).catch((e: unknown) => notifyError(e, `Could not open ${typedId}`)),
              },
            ],
          },
        ]
      : [];
    return [
      ...byId,
      {
        group: 'Pages',
        actions: nav.map((n, i) => {
          const s = navShortcut(i);
          return {
            id: `page-${n.section}`,
            label: n.label,
            description: `Open ${n.label} (${ENV_LABEL[environment].toLowerCase()})`,
            leftSection: n.icon,
            rightSection: s ? <Keys keys={s.keys} /> : undefined,
            keywords: ['go', 'page', n.section],
            onClick: () => setSection(n.section),
          };
        }),
      },
      {
        group: 'Actions',
        actions: [
          {
            id: 'env-switch',
            label: `Switch to ${other}`,
            description: other === 'live' ? 'Real checks, charged to the wallet — asks to confirm' : 'Test data, never charged',
            leftSection: <IconArrowsExchange size={18} />,
            rightSection: <Keys keys={ENV_SHORTCUT.keys} />,
            keywords: ['environment', 'sandbox', 'live', 'mode'],
            onClick: () => requestEnvironment(other),
          },
          {
            id: 'demo-tour',
            label: 'Take the demo tour',
            description: tourSummary(),
            leftSection: <IconRoute2 size={18} />,
            keywords: ['tour', 'demo', 'guide', 'help'],
            onClick: () => void startDemoTour((to) => void navigate(to)),
          },
          ...(!can('keys:create') ? [] : [{
            id: 'create-key',
            label: 'Create API key',
            description: 'Open API keys and start a new key',
            leftSection: <IconKey size={18} />,
            keywords: ['key', 'token', 'new'],
            onClick: () => {
              setSection('keys');
              pressWhenReady('create-key-button');
            },
          }]),
          ...(!can('wallet:topUp') ? [] : [{
            id: 'top-up',
            label: 'Top up wallet',
            description: 'Credit the live wallet (owner action, recorded in the ledger)',
            leftSection: <IconPlus size={18} />,
            keywords: ['wallet', 'balance', 'credit', 'money', 'funds'],
            onClick: () => {
              setSection('wallet');
              pressWhenReady('wallet-topup');
            },
          }]),
          {
            id: 'shortcuts',
            label: 'Keyboard shortcuts',
            description: 'Every shortcut of the console',
            leftSection: <IconKeyboard size={18} />,
            rightSection: <Keys keys={HELP_SHORTCUT.keys} />,
            keywords: ['help', 'keys', 'hotkeys'],
            onClick: onShowShortcuts,
          },
        ],
      },
      {
        group: 'Verify a sandbox fixture…',
        actions: fixtures.map((f, i) => ({
          id: `fixture-${i}`,
          label: `Verify ${f.kind} ${f.country}: ${f.description}`,
          description: `Sandbox fixture · expects ${f.expected.status}${f.expected.errorCode ? ` (${f.expected.errorCode})` : ''}`,
          leftSection: <IconFlask size={18} />,
          keywords: ['fixture', 'sandbox', 'verify', 'check', 'run', f.kind, f.country],
          onClick: () => void run(f),
        })),
      },
      {
        // Worded "Open … in Verify" so a search for "Verify account NG" still finds the run-now entry first.
        group: 'Open a sandbox fixture in Verify…',
        actions: fixtures.filter(isRunnable).map((f, i) => ({
          id: `fixture-open-${i}`,
          label: `Open in Verify: ${f.kind} ${f.country}: ${f.description}`,
          description: `Fills the ${f.kind} form; nothing runs until you submit (in ${ENV_LABEL[environment].toLowerCase()})`,
          leftSection: <IconEdit size={18} />,
          keywords: ['fixture', 'sandbox', 'open', 'form', 'prefill', 'fill', f.kind, f.country],
          onClick: () => openInVerify(f),
        })),
      },
    ];
  }, [nav, environment, fixtures, setSection, requestEnvironment, onShowShortcuts, openInVerify, typedId, can]);

  return (
    <>
      <Spotlight
        actions={actions}
        query={query}
        onQueryChange={setQuery}
        filter={(query, all) => paletteFilter(query, all)}
        limit={40}
        scrollable
        maxHeight={460}
        highlightQuery
        nothingFound="Nothing matches. Try a page name (History), an action (top up) or “fixture NG”."
        searchProps={{
          leftSection: <IconSearch size={18} />,
          rightSection: (
            <Badge color={ENV_COLOR[environment]} variant="filled" size="sm" mr="md" data-testid="palette-env">
              {ENV_LABEL[environment]}
            </Badge>
          ),
          rightSectionWidth: 110,
          placeholder: 'Go to a page, run an action or a sandbox fixture…',
          // @ts-expect-error data-* attributes pass through to the input element
          'data-testid': 'palette-search',
        }}
      />
      <Modal
        opened={running !== null}
        onClose={() => setRunning(null)}
        title="Sandbox fixture"
        size="lg"
        data-testid="palette-fixture-modal"
      >
        {running && (
          <Stack>
            <Text size="sm">
              <b>
                {running.fixture.kind} · {running.fixture.country}
              </b>{' '}
              — {running.fixture.description}. Run in sandbox whatever the console&apos;s environment, so it is never charged.
            </Text>
            {running.result ? <VerificationResult record={running.result} /> : <Text c="dimmed">Running…</Text>}
            {isRunnable(running.fixture) && (
              <Group justify="flex-end">
                <Button
                  variant="light"
                  leftSection={<IconEdit size={16} />}
                  data-testid="palette-open-in-verify"
                  onClick={() => {
                    const f = running.fixture;
                    setRunning(null);
                    if (isRunnable(f)) openInVerify(f);
                  }}
                >
                  Open in Verify
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </Modal>
    </>
  );
}
