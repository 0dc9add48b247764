// "Fill from sandbox fixture" for every verify tab: a searchable list of the documented sandbox requests of one
// kind, grouped by country with the form's chosen country first, each showing the answer it is known to produce
// and the request it fills. In live it is disabled and says why (a fixture only answers in sandbox). Picking one
// says what it set, so no other option of the form (country, holder type, async…) changes silently.
import { useEffect, useMemo, useState } from 'react';
import { Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconFlask } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { call } from '../../client/bridge';
import { notifyError, notifySuccess } from '../../app/notify';
import { useConsole } from '../../app/store';

// One request per console session: the list is static for a given service version.
let cached: Promise<SandboxFixture[]> | null = null;
function loadFixtures(): Promise<SandboxFixture[]> {
  cached ??= call('sandbox:fixtures', {}).catch((e: unknown) => {
    cached = null;
    throw e;
  });
  return cached;
}

/** The request a fixture fills, as one line: `accountNumber 0123456789 · bankCode 058 · mode async`. */
export function requestSummary(request: Record<string, unknown>): string {
  return Object.entries(request)
    .filter(([k]) => k !== 'selfieImage')
    .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .concat('selfieImage' in request ? ['selfieImage (sample image)'] : [])
    .join(' · ');
}

/**
 * `bareTestIds`: the bank-account form's picker predates the other kinds and keeps its unqualified test id
 * (`fixture-menu`); the others are `fixture-menu-<kind>`.
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
  const environment = useConsole((s) => s.environment);
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

  const groups = useMemo(() => {
    const byCountry = new Map<string, { value: string; label: string }[]>();
    (fixtures ?? []).forEach((f, i) => {
      const items = byCountry.get(f.country) ?? [];
      items.push({ value: String(i), label: `${f.country} · ${f.description} — expects ${f.expected.status}${f.expected.errorCode ? ` (${f.expected.errorCode})` : ''}` });
      byCountry.set(f.country, items);
    });
    return [...byCountry]
      .sort(([a], [b]) => Number(b === country) - Number(a === country) || a.localeCompare(b))
      .map(([c, items]) => ({ group: `${kind} · ${c}${c === country ? ' (the form’s country)' : ''}`, items }));
  }, [fixtures, country, kind]);

  const inLive = environment === 'live';
  const testId = bareTestIds ? 'fixture-menu' : `fixture-menu-${kind}`;
  const picker = (
    <Select
      data-testid={testId}
      aria-label={`Fill the form from a sandbox ${kind} fixture`}
      placeholder={inLive ? 'Fixtures: sandbox only' : 'Fill from sandbox fixture…'}
      leftSection={<IconFlask size={16} />}
      searchable
      clearable={false}
      value={null}
      data={groups}
      disabled={inLive || !fixtures?.length}
      nothingFoundMessage="No fixture matches"
      maxDropdownHeight={380}
      w={260}
      comboboxProps={{ width: 480, position: 'bottom-end' }}
      renderOption={({ option }) => {
        const f = fixtures?.[Number(option.value)];
        return (
          <Stack gap={0}>
            <Text size="sm">{option.label}</Text>
            {f && (
              <Text size="xs" c="dimmed" ff="monospace" lineClamp={2}>
                {requestSummary(f.request)}
              </Text>
            )}
          </Stack>
        );
      }}
      onChange={(v) => {
        const f = v === null ? undefined : fixtures?.[Number(v)];
        if (!f) return;
        onPick(f);
        notifySuccess(`Filled ${requestSummary(f.request)}. Nothing has run yet.`, `Form filled from “${f.country}: ${f.description}”`);
      }}
    />
  );
  if (!inLive) return picker;
  return (
    <Tooltip label="A sandbox fixture only answers in sandbox; in live the same request would be a real, charged check." multiline w={280} withArrow>
      <div>{picker}</div>
    </Tooltip>
  );
}
