// Verify: the bank-account form (driven by the corridor table), sandbox fixture shortcuts, and the result; the
// other kinds have a tab each. A link (the palette's "open in Verify") opens it on a tab with the form filled.
import { useEffect, useMemo, useState, type FocusEvent, type FormEvent } from 'react';
import { Alert, Group, SegmentedControl, Select, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { IconBuildingBank, IconFaceId, IconFlask, IconHome, IconId, IconPhone } from '@tabler/icons-react';
import type { SandboxFixture } from '../../../src-shared/channels';
import { accountFormatFailure, accountRequestIssues, CORRIDORS, formIssueMessage } from '../../../src-shared/corridors';
import { call } from '../../client/bridge';
import { serviceKey } from '../../../src-shared/services';
import { PageTitle } from '../../app/page-title';
import { useNavigate, useParams } from 'react-router';
import { useConsole, type PrefillKind } from '../../app/store';
import { isVerifyKind, paths } from '../../app/routes';
import { EMPTY_FORM, formatFailureField, fromFixture, issueField, toRequest, visibleFields, type AccountForm, type FormField } from './account-request';
import { FixturePicker } from './fixture-picker';
import { useVerifyPrefill } from './prefill';
import { AsyncSwitch, FormatWarning, GeneralError, SubmitRow, VerifyFormLayout } from './form-bits';
import { RefusalPanel, ResultPlaceholder } from './result-pane';
import { useSubmission } from './use-submission';
import { forgetDrafts, useDraft } from './drafts';
import { VerificationResult } from './verification-result';
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

function AccountTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useDraft<AccountForm>('account', 'form', EMPTY_FORM);
  const [errors, setErrors] = useDraft<Messages>('account', 'errors', {});
  const [warnings, setWarnings] = useDraft<Messages>('account', 'warnings', {});
  const [general, setGeneral] = useDraft<string | undefined>('account', 'general', undefined);
  const s = useSubmission(environment, 'account');
  const v = useMemo(() => visibleFields(form), [form]);

  function set<K extends keyof AccountForm>(key: K, value: AccountForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
    setWarnings((w) => ({ ...w, [key]: undefined }));
  }

  function fill(request: Record<string, unknown>) {
    setForm(fromFixture(request));
    setErrors({});
    setWarnings({});
    setGeneral(undefined);
    // A result left on screen next to other inputs would read as the answer for them.
    s.clear();
  }
  const pickFixture = (f: SandboxFixture) => fill(f.request);
  useVerifyPrefill('account', fill);

  /** The label each input shows, so a message can name the field the way the form does. */
  function labelOf(field: FormField): string | undefined {
    const r = v?.rules;
    const labels: Partial<Record<FormField, string | undefined>> = {
      country: 'Country',
      accountHolderType: 'Account holder',
      accountNumber: r?.accountNumber.label,
      bankCode: r?.bankCode.label,
      accountName: 'Account holder name',
      identifierValue: v?.identifier?.label,
      currency: 'Currency',
    };
    return labels[field];
  }
  function valueOf(field: FormField): string | undefined {
    const value = field in form ? form[field as keyof AccountForm] : undefined;
    return typeof value === 'string' ? value : undefined;
  }

  /** A format check as soon as the user leaves a field, before any submit (the rules of src-shared/corridors). */
  function checkFormat(field: FormField) {
    const req = toRequest(form);
    if (accountRequestIssues(req).some((i) => issueField(i.field) === field)) return;
    const failure = accountFormatFailure(req);
    setWarnings((w) => ({ ...w, [field]: failure && formatFailureField(failure) === field ? failure.message : undefined }));
  }

  /**
   * Leaving a filled field checks it — unless the focus goes to the submit button: the submit checks it anyway, and a
   * warning appearing under the field at mouse-down would move the button away from the pointer before mouse-up.
   */
  function onLeave(e: FocusEvent<HTMLInputElement>, field: 'accountNumber' | 'bankCode' | 'identifierValue') {
    if (e.relatedTarget instanceof HTMLButtonElement && e.relatedTarget.type === 'submit') return;
    if (form[field].trim()) checkFormat(field);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setGeneral(undefined);
    const req = toRequest(form);
    const issues = accountRequestIssues(req);
    if (issues.length > 0) {
      const next: Messages = {};
      const unplaced: string[] = [];
      for (const i of issues) {
        const field = issueField(i.field);
        // In the form's own words: "Account number (NUBAN) is required.", not the API's JSON-named message.
        if (field) next[field] ??= formIssueMessage(i, labelOf(field), valueOf(field));
        else unplaced.push(i.message);
      }
      setErrors(next);
      setWarnings({});
      if (unplaced.length) setGeneral(unplaced.join(' '));
      // A result left on screen next to edited inputs would read as the answer for them.
      return s.clear();
    }
    setErrors({});
    const failure = accountFormatFailure(req);
    setWarnings(failure ? { [formatFailureField(failure)]: failure.message } : {});
    await s.submit(
      () => call('verify:account', { environment, request: req }),
      (details) => {
        const next: Messages = {};
        for (const d of details) {
          const field = issueField(d.field);
          if (field) next[field] ??= d.message;
        }
        setErrors(next);
      },
    );
  }

  const rules = v?.rules;
  return (
    <VerifyFormLayout
      title="Bank account"
      onSubmit={submit}
      picker={<FixturePicker kind="account" bareTestIds country={form.country} onPick={pickFixture} />}
      result={s.result ? <VerificationResult record={s.result} onPoll={() => void s.poll()} polling={s.polling} /> : s.refusal ? <RefusalPanel refusal={s.refusal} /> : <ResultPlaceholder />}
    >
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
            onBlur={(e) => onLeave(e, 'accountNumber')}
            error={errors.accountNumber}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <FormatWarning text={warnings.accountNumber} />
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
            onBlur={(e) => onLeave(e, 'bankCode')}
            error={errors.bankCode}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <FormatWarning text={warnings.bankCode} />
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
              onBlur={(e) => onLeave(e, 'identifierValue')}
              error={errors.identifierValue}
            />
          </Group>
          <FormatWarning text={warnings.identifierValue} />
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
        <AsyncSwitch testId="verify-async" checked={form.async} onChange={(c) => set('async', c)} error={errors.async} />
      )}
      <GeneralError text={general} />
      <SubmitRow
        environment={environment}
        busy={s.busy}
        label="Verify account"
        icon={<IconBuildingBank size={16} />}
        testId="verify-submit"
        service={form.country ? serviceKey.account(form.country) : null}
      />
    </VerifyFormLayout>
  );
}

/** The tab is the address's (`#/verify/phone`); a prefill opens on its own kind's tab. */
export function VerifyPage() {
  const prefill = useConsole((s) => s.verifyPrefill);
  const { kind } = useParams();
  const navigate = useNavigate();
  const tab: PrefillKind = isVerifyKind(kind) ? kind : 'account';
  const setTab = (k: PrefillKind) => void navigate(paths.verify(k));
  const [note, setNote] = useState<string | null>(null);
  // The tabs' drafts last while Verify is shown: a switch between tabs keeps them, leaving the page forgets them.
  useEffect(() => forgetDrafts, []);
  // The tab of the prefill's kind mounts (only the shown tab is in the page; what each holds lives in drafts.ts,
  // so a switch loses nothing) and takes the request from the store.
  useEffect(() => {
    if (!prefill) return;
    if (prefill.kind !== tab) void navigate(paths.verify(prefill.kind), { replace: true });
    setNote(prefill.label ?? `a ${prefill.kind} request`);
  }, [prefill, tab, navigate]);
  return (
    <Stack>
      <PageTitle title="Verify" />
      {note && (
        <Alert color="grape" variant="light" icon={<IconFlask size={16} />} withCloseButton onClose={() => setNote(null)} data-testid="verify-prefilled" p="xs">
          Filled from {note}. Nothing has run yet: review the form and submit.
        </Alert>
      )}
      <Tabs value={tab} onChange={(v) => isVerifyKind(v) && setTab(v)} keepMounted={false}>
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
