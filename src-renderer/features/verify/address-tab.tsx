// Verify → Address: always a background job, so the answer is a pending record and the user polls (or waits for
// the webhook).
import { type FormEvent } from 'react';
import { Alert, Fieldset, Select, SimpleGrid, TextInput } from '@mantine/core';
import { IconHomeCheck, IconInfoCircle } from '@tabler/icons-react';
import { serviceKey } from '../../../src-shared/services';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';
import { FixturePicker } from './fixture-picker';
import { useVerifyPrefill } from './prefill';
import { GeneralError, SubmitRow, VerifyFormLayout } from './form-bits';
import {
  ADDRESS_FIELDS,
  ADDRESS_LABELS,
  addressFormFromFixture,
  checkAddress,
  EMPTY_ADDRESS,
  issuesToMessages,
  toAddressRequest,
  type AddressForm,
  type FieldMessages,
} from './more-requests';
import { ResultPane } from './result-pane';
import { useSubmission } from './use-submission';
import { useDraft } from './drafts';
import { ADDRESS_COUNTRIES } from '../../../src-shared/address-rules';
import { FIELD_MAX } from '../../../src-shared/schemas/verification-more';

/** Where each address input stops typing: the service's own limits. */
const ADDRESS_MAX: Record<string, number> = {
  addressLine1: FIELD_MAX.addressLine,
  addressLine2: FIELD_MAX.addressLine,
  city: FIELD_MAX.city,
  region: FIELD_MAX.region,
  postalCode: FIELD_MAX.postalCode,
  firstName: FIELD_MAX.personName,
  lastName: FIELD_MAX.personName,
};

const names = (() => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' });
  } catch {
    return null;
  }
})();
const COUNTRY_DATA = ADDRESS_COUNTRIES.map((c) => ({ value: c, label: `${names?.of(c) ?? c} (${c})` })).sort((a, b) => a.label.localeCompare(b.label));

export function AddressTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useDraft<AddressForm>('address', 'form', EMPTY_ADDRESS);
  const [errors, setErrors] = useDraft<FieldMessages>('address', 'errors', {});
  const s = useSubmission(environment, 'address');

  function set<K extends keyof AddressForm>(key: K, value: AddressForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined, general: undefined }));
  }

  function fill(request: Record<string, unknown>) {
    setForm(addressFormFromFixture(request));
    setErrors({});
    s.clear();
  }
  useVerifyPrefill('address', fill);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const errs = checkAddress(form);
    setErrors(errs);
    if (Object.values(errs).some(Boolean)) return s.clear();
    await s.submit(
      () => call('verify:address', { environment, request: toAddressRequest(form) }),
      (d) => setErrors(issuesToMessages(d, ADDRESS_FIELDS, ADDRESS_LABELS)),
    );
  }

  const text = (key: keyof AddressForm, label: string, opts: { required?: boolean; placeholder?: string; testId: string }) => (
    <TextInput
      data-testid={opts.testId}
      label={label}
      maxLength={ADDRESS_MAX[key]}
      required={opts.required ?? false}
      placeholder={opts.placeholder}
      value={form[key]}
      onChange={(e) => set(key, e.currentTarget.value)}
      error={errors[key]}
    />
  );

  return (
    <VerifyFormLayout
      title="Address"
      formTestId="address-form"
      onSubmit={submit}
      picker={
        <FixturePicker
          kind="address"
          country={form.country}
          onPick={(f) => fill(f.request)}
        />
      }
      result={<ResultPane submission={s} placeholder="The pending record appears here, with a button to check for the result." />}
    >
      <Alert variant="light" color="blue" icon={<IconInfoCircle size={16} />} p="xs">
        Address checks always run in the background: you get a <b>pending</b> record at once, then poll it here or receive a webhook.
      </Alert>
      <Select
        data-testid="address-country"
        label="Country"
        searchable
        allowDeselect={false}
        data={COUNTRY_DATA}
        value={form.country}
        onChange={(c) => c && set('country', c)}
        error={errors['country']}
        maxDropdownHeight={320}
      />
      {text('addressLine1', 'Address line 1', { required: true, placeholder: 'e.g. 12 Admiralty Way', testId: 'address-line1' })}
      {text('addressLine2', 'Address line 2', { testId: 'address-line2' })}
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        {text('city', 'City', { required: true, testId: 'address-city' })}
        {text('region', 'Region / state', { testId: 'address-region' })}
        {text('postalCode', 'Postal code', { testId: 'address-postal-code' })}
      </SimpleGrid>
      <Fieldset legend="Subject (optional) — is this person associated with the address?">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          {text('firstName', 'First name', { testId: 'address-first-name' })}
          {text('lastName', 'Last name', { testId: 'address-last-name' })}
        </SimpleGrid>
      </Fieldset>
      <GeneralError text={errors['general'] ?? errors['subject']} />
      <SubmitRow environment={environment} busy={s.busy} label="Start address check" icon={<IconHomeCheck size={16} />} testId="address-submit" service={serviceKey.address} />
    </VerifyFormLayout>
  );
}
