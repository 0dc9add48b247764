// Verify → Identity: the document type (which implies the country), its number, and the holder's details to
// match against the registry (names required for a driver's licence).
import { type FormEvent } from 'react';
import { Badge, Fieldset, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { IconId } from '@tabler/icons-react';
import { getIdentityType, IDENTITY_COUNTRIES, IDENTITY_TYPES } from '../../../src-shared/identity-rules';
import { serviceKey } from '../../../src-shared/services';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';
import { FixturePicker } from './fixture-picker';
import { useVerifyPrefill } from './prefill';
import { AsyncSwitch, FormatWarning, GeneralError, SubmitRow, VerifyFormLayout } from './form-bits';
import {
  checkIdentity,
  EMPTY_IDENTITY,
  IDENTITY_FIELDS,
  IDENTITY_LABELS,
  identityFormFromFixture,
  issuesToMessages,
  toIdentityRequest,
  type FieldMessages,
  type IdentityForm,
} from './more-requests';
import { ResultPane } from './result-pane';
import { useSubmission } from './use-submission';
import { useDraft } from './drafts';
import { FIELD_MAX } from '../../../src-shared/schemas/verification-more';

const TYPE_DATA = (() => {
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const t of IDENTITY_TYPES) {
    const items = groups.get(t.country) ?? [];
    items.push({ value: t.idType, label: t.label });
    groups.set(t.country, items);
  }
  return [...groups].map(([country, items]) => ({ group: `${IDENTITY_COUNTRIES[country]?.name ?? country} (${country})`, items }));
})();

export function IdentityTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useDraft<IdentityForm>('identity', 'form', EMPTY_IDENTITY);
  const [errors, setErrors] = useDraft<FieldMessages>('identity', 'errors', {});
  const [warning, setWarning] = useDraft<{ field: string; message: string } | null>('identity', 'warning', null);
  const s = useSubmission(environment, 'identity');
  const type = getIdentityType(form.idType);

  function set<K extends keyof IdentityForm>(key: K, value: IdentityForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined, general: undefined }));
    setWarning(null);
  }

  function fill(request: Record<string, unknown>) {
    setForm(identityFormFromFixture(request));
    setErrors({});
    setWarning(null);
    s.clear();
  }
  useVerifyPrefill('identity', fill);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const check = checkIdentity(form);
    setErrors(check.errors);
    setWarning(check.warning);
    if (Object.values(check.errors).some(Boolean)) return s.clear();
    await s.submit(
      () => call('verify:identity', { environment, request: toIdentityRequest(form) }),
      (d) => setErrors(issuesToMessages(d, IDENTITY_FIELDS, IDENTITY_LABELS)),
    );
  }

  const namesRequired = type?.namesRequired ?? false;
  return (
    <VerifyFormLayout
      title="Identity document"
      formTestId="identity-form"
      onSubmit={submit}
      picker={
        <FixturePicker
          kind="identity"
          country={type?.country}
          onPick={(f) => fill(f.request)}
        />
      }
      result={<ResultPane submission={s} />}
    >
      <Select
        data-testid="identity-type"
        label="Document type"
        allowDeselect={false}
        data={TYPE_DATA}
        value={form.idType || null}
        onChange={(t) => t && set('idType', t)}
        error={errors['idType'] ?? errors['country']}
        rightSectionWidth={56}
        rightSection={type ? <Badge variant="light" size="sm" data-testid="identity-country">{type.country}</Badge> : undefined}
        description={type ? `Verified against the ${IDENTITY_COUNTRIES[type.country]?.registry ?? type.country} registry (${type.verificationType}).` : undefined}
      />
      <div>
        <TextInput
          data-testid="identity-number"
          label="Document number"
          description={type?.hint}
          placeholder={type ? `e.g. ${type.sample.idNumber}` : undefined}
          required
          maxLength={FIELD_MAX.idNumber}
          value={form.idNumber}
          onChange={(e) => set('idNumber', e.currentTarget.value)}
          error={errors['idNumber']}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {warning?.field === 'idNumber' && <FormatWarning text={warning.message} />}
      </div>
      <Fieldset legend={namesRequired ? 'Validation — names required for this document' : 'Validation (optional) — matched against the registry'} data-testid="identity-validation">
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              data-testid="identity-first-name"
              label="First name"
              required={namesRequired}
              placeholder={type?.sample.validation ? `e.g. ${type.sample.validation.firstName}` : undefined}
              maxLength={FIELD_MAX.personName}
              value={form.firstName}
              onChange={(e) => set('firstName', e.currentTarget.value)}
              error={errors['firstName']}
            />
            <TextInput
              data-testid="identity-last-name"
              label="Last name"
              required={namesRequired}
              placeholder={type?.sample.validation ? `e.g. ${type.sample.validation.lastName}` : undefined}
              maxLength={FIELD_MAX.personName}
              value={form.lastName}
              onChange={(e) => set('lastName', e.currentTarget.value)}
              error={errors['lastName']}
            />
          </SimpleGrid>
          <TextInput
            data-testid="identity-date-of-birth"
            label="Date of birth"
            type="date"
            w={200}
            value={form.dateOfBirth}
            onChange={(e) => set('dateOfBirth', e.currentTarget.value)}
            error={errors['dateOfBirth']}
          />
        </Stack>
      </Fieldset>
      {type?.asyncAllowed && (
        <AsyncSwitch testId="identity-async" checked={form.async} onChange={(c) => set('async', c)} error={errors['mode']} />
      )}
      <GeneralError text={errors['general']} />
      <SubmitRow environment={environment} busy={s.busy} label="Verify identity" icon={<IconId size={16} />} testId="identity-submit" service={serviceKey.identity(form.idType)} />
    </VerifyFormLayout>
  );
}
