// The onboarding's guided first check: pick a documented sandbox fixture, run it, read the answer it is known to
// give. Nothing here can be charged: fixtures always run in sandbox.
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Group, Loader, Select, Stack, Text } from '@mantine/core';
import { IconFlask, IconPlayerPlay } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { notifyError } from '../../app/notify';
import { fixtureLabel, loadRunnableFixtures, runFixture } from '../palette/run-fixture';
import { VerificationResult, type PartialRecord } from '../verify/verification-result';

/** Nigeria's bank-account success case first: the corridor the product started with, and a friendly first answer. */
function preferred(list: SandboxFixture[]): number {
  const i = list.findIndex((f) => f.kind === 'account' && f.country === 'NG' && f.expected.status === 'success');
  return i >= 0 ? i : 0;
}

export function FirstCheck({ onResult }: { onResult?: (r: PartialRecord) => void }) {
  const [fixtures, setFixtures] = useState<SandboxFixture[] | null>(null);
  const [loadFailed, setLoadFailed] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<PartialRecord | null>(null);

  useEffect(() => {
    let live = true;
    loadRunnableFixtures()
      .then((all) => {
        if (!live) return;
        setFixtures(all);
        setPicked(String(preferred(all)));
      })
      .catch((e: unknown) => {
        if (!live) return;
        setLoadFailed(true);
        notifyError(e, 'Could not load the sandbox fixtures');
      });
    return () => {
      live = false;
    };
  }, []);

  const data = useMemo(() => (fixtures ?? []).map((f, i) => ({ value: String(i), label: fixtureLabel(f) })), [fixtures]);
  const fixture = picked === null ? undefined : fixtures?.[Number(picked)];

  async function run() {
    if (!fixture) return;
    setBusy(true);
    setResult(null);
    try {
      const r = await runFixture(fixture);
      setResult(r);
      onResult?.(r);
    } catch (e) {
      notifyError(e, 'The check was not accepted');
    } finally {
      setBusy(false);
    }
  }

  if (loadFailed) {
    return (
      <Alert color="orange" title="No fixtures to try" data-testid="setup-fixtures-error">
        The sandbox fixtures could not be loaded. You can skip this step and run a check from the Verify page.
      </Alert>
    );
  }
  if (!fixtures) return <Loader size="sm" />;

  return (
    <Stack data-testid="setup-first-check">
      <Text size="sm">
        Sandbox fixtures are documented test requests with a known answer. Pick one and run it: it goes through the
        same path as an API call with your sandbox key, and it is never charged.
      </Text>
      <Select
        data-testid="setup-fixture"
        label="Sandbox fixture"
        leftSection={<IconFlask size={16} />}
        searchable
        allowDeselect={false}
        data={data}
        value={picked}
        onChange={(v) => {
          setPicked(v);
          setResult(null);
        }}
        maxDropdownHeight={320}
      />
      {fixture && (
        <Text size="xs" c="dimmed" data-testid="setup-fixture-expected">
          Expected answer: {fixture.expected.status}
          {fixture.expected.errorCode ? ` (${fixture.expected.errorCode})` : ''}
        </Text>
      )}
      <Group>
        <Button data-testid="setup-run-check" leftSection={<IconPlayerPlay size={16} />} loading={busy} disabled={!fixture} onClick={() => void run()}>
          Run this check
        </Button>
      </Group>
      {result && <VerificationResult record={result} />}
    </Stack>
  );
}
