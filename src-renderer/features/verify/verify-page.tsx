// Verify: the bank-account form (driven by the corridor table), sandbox fixture shortcuts, and the result.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Alert, Button, Grid, Group, Menu, Paper, ScrollArea, SegmentedControl, Select, Stack, Switch, Tabs, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconBuildingBank, IconChevronDown, IconFaceId, IconFlask, IconHome, IconId, IconPhone } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { accountFormatFailure, accountRequestIssues, CORRIDORS } from '../../../src-shared/corridors';
import { ConsoleError, call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { useConsole } from '../../app/store';
import { EMPTY_FORM, formatFailureField, fromFixture, issueField, toRequest, visibleFields, type AccountForm, type FormField } from './account-request';
import { VerificationResult, type PartialRecord } from './verification-result';
import { AddressTab } from './address-tab';
import { FaceTab } from './face-tab';
import { IdentityTab } from './identity-tab';
import { PhoneTab } from './phone-tab';

const COUNTRY_DATA = (() => {
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const c of CORRIDORS) {
    const items = groups.get(c.group) ?? [];
    items.push({ value: c.country, label: `${c.name} (${c.country})` });
    groups.set(c.group, items);
  }
  return [...groups].map(([group, items]) => ({ group, items }));
})();

type Messages = Partial<Record<FormField, string>>;

function FixtureMenu({ country, onPick }: { country: string; onPick: (f: SandboxFixture) => void }) {
  const [fixtures, setFixtures] = useState<SandboxFixture[] | null>(null);
  useEffect(() => {
    call('sandbox:fixtures', {})
      .then((all) => setFixtures(all.filter((f) => f.kind === 'account')))
      .catch((e: unknown) => notifyError(e, 'Could not load sandbox fixtures'));
  }, []);
  // The selected country's fixtures first: that is almost always what the user is after.
  const sorted = useMemo(
    () => [...(fixtures ?? [])].sort((a, b) => Number(b.country === country) - Number(a.country === country) || a.country.localeCompare(b.country)),
    [fixtures, country],
  );
  return (
    <Menu position="bottom-end" width={420} shadow="md">
      <Menu.Target>
        <Button variant="light" leftSection={<IconFlask size={16} />} rightSection={<IconChevronDown size={14} />} data-testid="fixture-menu" disabled={!fixtures?.length}>
          Fill from sandbox fixture
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Known sandbox accounts and their answers</Menu.Label>
        <ScrollArea.Autosize mah={420} type="auto">
        {sorted.map((f, i) => (
          <Menu.Item key={i} onClick={() => onPick(f)} data-testid={`fixture-${i}`} data-country={f.country} data-expected={f.expected.status}>
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

function Warning({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <Text size="xs" c="orange.8" mt={4} data-testid="format-warning">
      {text} Submitting records it as a failed verification (not charged).
    </Text>
  );
}

function AccountTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useState<AccountForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<Messages>({});
  const [warnings, setWarnings] = useState<Messages>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [polling, setPolling] = useState(false);
  const [result, setResult] = useState<PartialRecord | null>(null);
  const v = useMemo(() => visibleFields(form), [form]);

  function set<K extends keyof AccountForm>(key: K, value: AccountForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
    setWarnings((w) => ({ ...w, [key]: undefined }));
  }

  function pickFixture(f: SandboxFixture) {
    setForm(fromFixture(f.request));
    setErrors({});
    setWarnings({});
    setGeneral(null);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setGeneral(null);
    // A result left on screen next to edited inputs would read as the answer for them.
    setResult(null);
    const req = toRequest(form);
    const issues = accountRequestIssues(req);
    if (issues.length > 0) {
      const next: Messages = {};
      const unplaced: string[] = [];
      for (const i of issues) {
        const field = issueField(i.field);
        if (field) next[field] ??= i.message;
        else unplaced.push(i.message);
      }
      setErrors(next);
      setWarnings({});
      if (unplaced.length) setGeneral(unplaced.join(' '));
      return;
    }
    setErrors({});
    const failure = accountFormatFailure(req);
    setWarnings(failure ? { [formatFailureField(failure)]: failure.message } : {});
    setBusy(true);
    try {
      setResult(await call('verify:account', { environment, request: req }));
    } catch (err) {
      if (err instanceof ConsoleError && err.details.length > 0) {
        const next: Messages = {};
        for (const d of err.details) {
          const field = issueField(d.field);
          if (field) next[field] ??= d.message;
        }
        setErrors(next);
      }
      notifyError(err, 'Verification was not accepted');
    } finally {
      setBusy(false);
    }
  }

  async function poll() {
    if (!result) return;
    setPolling(true);
    try {
      setResult(await call('verify:get', { environment, id: result.id }));
    } catch (err) {
      notifyError(err, 'Could not fetch the verification');
    } finally {
      setPolling(false);
    }
  }

  const rules = v?.rules;
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 6 }}>
        <Paper withBorder p="md">
          <form onSubmit={(e) => void submit(e)} noValidate>
            <Stack gap="sm">
              <Group justify="space-between">
                <Text fw={600}>Bank account</Text>
                <FixtureMenu country={form.country} onPick={pickFixture} />
              </Group>
              <Select
                data-testid="verify-country"
                label="Country"
                searchable
                allowDeselect={false}
                data={COUNTRY_DATA}
                value={form.country}
                onChange={(c) => c && set('country', c)}
                error={errors.country}
                maxDropdownHeight={320}
                description={v ? `${v.corridor.checkType.replace('_', ' ').toLowerCase()} · ${v.async ? 'sync or async' : 'synchronous'}` : undefined}
              />
              {v?.accountHolderType && (
                <Stack gap={4}>
                  <Text size="sm" fw={500}>
                    Account holder
                  </Text>
                  <SegmentedControl
                    data-testid="verify-holder-type"
                    value={form.accountHolderType}
                    onChange={(t) => set('accountHolderType', t === 'BUSINESS' ? 'BUSINESS' : 'INDIVIDUAL')}
                    data={[
                      { value: 'INDIVIDUAL', label: 'Individual' },
                      { value: 'BUSINESS', label: 'Business' },
                    ]}
                  />
                  {errors.accountHolderType && (
                    <Text size="xs" c="red">
                      {errors.accountHolderType}
                    </Text>
                  )}
                </Stack>
              )}
              {rules && (
                <div>
                  <TextInput
                    data-testid="verify-account-number"
                    label={rules.accountNumber.label}
                    description={rules.accountNumber.hint}
                    placeholder={`e.g. ${v.corridor.sample.accountNumber}`}
                    required
                    value={form.accountNumber}
                    onChange={(e) => set('accountNumber', e.currentTarget.value)}
                    error={errors.accountNumber}
                    styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                  />
                  <Warning text={warnings.accountNumber} />
                </div>
              )}
              {rules && v.bankCode && (
                <div>
                  <TextInput
                    data-testid="verify-bank-code"
                    label={rules.bankCode.label}
                    description={rules.bankCode.hint}
                    placeholder={v.corridor.sample.bankCode ? `e.g. ${v.corridor.sample.bankCode}` : undefined}
                    required={rules.bankCode.required}
                    value={form.bankCode}
                    onChange={(e) => set('bankCode', e.currentTarget.value)}
                    error={errors.bankCode}
                    styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                  />
                  <Warning text={warnings.bankCode} />
                </div>
              )}
              {v?.accountName && (
                <TextInput
                  data-testid="verify-account-name"
                  label="Account holder name"
                  description="The name to match against the bank's records."
                  placeholder={v.corridor.sample.accountName ? `e.g. ${v.corridor.sample.accountName}` : undefined}
                  required
                  value={form.accountName}
                  onChange={(e) => set('accountName', e.currentTarget.value)}
                  error={errors.accountName}
                />
              )}
              {v?.identifier && (
                <div>
                  <Group grow align="flex-start">
                    <Select
                      data-testid="verify-identifier-type"
                      label="Identifier type"
                      allowDeselect={false}
                      data={v.identifier.types}
                      value={form.identifierType || v.identifier.types[0] || null}
                      onChange={(t) => t && set('identifierType', t)}
                    />
                    <TextInput
                      data-testid="verify-identifier-value"
                      label={v.identifier.label}
                      required
                      placeholder={v.corridor.sample.identifiers?.[0] ? `e.g. ${v.corridor.sample.identifiers[0].value}` : undefined}
                      value={form.identifierValue}
                      onChange={(e) => set('identifierValue', e.currentTarget.value)}
                      error={errors.identifierValue}
                    />
                  </Group>
                  <Warning text={warnings.identifierValue} />
                </div>
              )}
              {v && (
                <TextInput
                  data-testid="verify-currency"
                  label="Currency"
                  description={v.corridor.currency ? `Optional; only ${v.corridor.currency} accounts can be verified here.` : 'Optional ISO 4217 code.'}
                  placeholder={v.corridor.currency ?? 'ISO code'}
                  maxLength={3}
                  value={form.currency}
                  onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())}
                  error={errors.currency}
                  w={200}
                />
              )}
              {v?.async && (
                <Switch
                  data-testid="verify-async"
                  label="Run asynchronously"
                  description="Answer at once with a pending record; the result arrives by webhook or polling."
                  checked={form.async}
                  onChange={(e) => set('async', e.currentTarget.checked)}
                  error={errors.async}
                />
              )}
              {general && (
                <Alert color="red" icon={<IconAlertTriangle size={16} />}>
                  {general}
                </Alert>
              )}
              <Group justify="space-between" mt="xs">
                <Text size="xs" c="dimmed">
                  Runs in the <b>{environment}</b> environment.
                </Text>
                <Button type="submit" data-testid="verify-submit" loading={busy} leftSection={<IconBuildingBank size={16} />}>
                  Verify account
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 6 }}>
        {result ? (
          <VerificationResult record={result} onPoll={() => void poll()} polling={polling} />
        ) : (
          <Paper withBorder p="md" c="dimmed" data-testid="verification-placeholder">
            <Text size="sm">The result appears here. Pick a sandbox fixture to try a known answer.</Text>
          </Paper>
        )}
      </Grid.Col>
    </Grid>
  );
}

export function VerifyPage() {
  return (
    <Stack>
      <Title order={2}>Verify</Title>
      <Tabs defaultValue="account" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="account" leftSection={<IconBuildingBank size={16} />} data-testid="verify-tab-account">
            Bank account
          </Tabs.Tab>
          <Tabs.Tab value="phone" leftSection={<IconPhone size={16} />} data-testid="verify-tab-phone">
            Phone
          </Tabs.Tab>
          <Tabs.Tab value="identity" leftSection={<IconId size={16} />} data-testid="verify-tab-identity">
            Identity
          </Tabs.Tab>
          <Tabs.Tab value="face" leftSection={<IconFaceId size={16} />} data-testid="verify-tab-face">
            Face
          </Tabs.Tab>
          <Tabs.Tab value="address" leftSection={<IconHome size={16} />} data-testid="verify-tab-address">
            Address
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="account">
          <AccountTab />
        </Tabs.Panel>
        <Tabs.Panel value="phone">
          <PhoneTab />
        </Tabs.Panel>
        <Tabs.Panel value="identity">
          <IdentityTab />
        </Tabs.Panel>
        <Tabs.Panel value="face">
          <FaceTab />
        </Tabs.Panel>
        <Tabs.Panel value="address">
          <AddressTab />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
