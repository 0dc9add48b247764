// Verify → Phone: market, number and (where the market uses them) network code, sync or async.
import { type FormEvent } from 'react';
import { Select, TextInput } from '@mantine/core';
import { IconPhone } from '@tabler/icons-react';
import { getPhoneMarket, PHONE_MARKETS } from '../../../src-shared/phone-markets';
import { serviceKey } from '../../../src-shared/services';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';
import { FixturePicker } from './fixture-picker';
import { useVerifyPrefill } from './prefill';
import { AsyncSwitch, FormatWarning, GeneralError, SubmitRow, VerifyFormLayout } from './form-bits';
import { checkPhone, EMPTY_PHONE, issuesToMessages, PHONE_FIELDS, PHONE_LABELS, phoneFormFromFixture, toPhoneRequest, type FieldMessages, type PhoneForm } from './more-requests';
import { ResultPane } from './result-pane';
import { useSubmission } from './use-submission';
import { useDraft } from './drafts';
import { FIELD_MAX } from '../../../src-shared/schemas/verification-more';

const MARKET_DATA = PHONE_MARKETS.map((m) => ({ value: m.country, label: `${m.name} (${m.country})` }));

export function PhoneTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useDraft<PhoneForm>('phone', 'form', EMPTY_PHONE);
  const [errors, setErrors] = useDraft<FieldMessages>('phone', 'errors', {});
  const [warning, setWarning] = useDraft<{ field: string; message: string } | null>('phone', 'warning', null);
  const s = useSubmission(environment, 'phone');
  const market = getPhoneMarket(form.country);

  function set<K extends keyof PhoneForm>(key: K, value: PhoneForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined, general: undefined }));
    setWarning(null);
  }

  function fill(request: Record<string, unknown>) {
    setForm(phoneFormFromFixture(request));
    setErrors({});
    setWarning(null);
    s.clear();
  }
  useVerifyPrefill('phone', fill);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const check = checkPhone(form);
    setErrors(check.errors);
    setWarning(check.warning);
    if (Object.values(check.errors).some(Boolean)) return s.clear();
    await s.submit(
      () => call('verify:phone', { environment, request: toPhoneRequest(form) }),
      (d) => setErrors(issuesToMessages(d, PHONE_FIELDS, PHONE_LABELS)),
    );
  }

  return (
    <VerifyFormLayout
      title="Phone number"
      formTestId="phone-form"
      onSubmit={submit}
      picker={
        <FixturePicker
          kind="phone"
          country={form.country}
          onPick={(f) => fill(f.request)}
        />
      }
      result={<ResultPane submission={s} />}
    >
      <Select
        data-testid="phone-country"
        label="Market"
        searchable
        allowDeselect={false}
        data={MARKET_DATA}
        value={form.country}
        onChange={(c) => c && setForm((f) => ({ ...f, country: c, networkCode: '' }))}
        error={errors['country']}
      />
      <div>
        <TextInput
          data-testid="phone-number"
          label="Phone number"
          description="Local or international format; the service normalises it to E.164."
          placeholder={market ? `e.g. ${market.sample.phoneNumber}` : undefined}
          required
          maxLength={FIELD_MAX.phoneNumber}
          value={form.phoneNumber}
          onChange={(e) => set('phoneNumber', e.currentTarget.value)}
          error={errors['phoneNumber']}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {warning?.field === 'phoneNumber' && <FormatWarning text={warning.message} />}
      </div>
      {market && market.networkCodes.length > 0 && (
        <div>
          <Select
            data-testid="phone-network-code"
            label="Network"
            description={`The mobile network the number belongs to${market.networkCodeRequired ? ' (required in ' + market.name + ')' : ''}.`}
            placeholder="Choose the network"
            required={market.networkCodeRequired}
            clearable={!market.networkCodeRequired}
            data={[...market.networkCodes]}
            value={market.networkCodes.find((c) => c.toUpperCase() === form.networkCode.toUpperCase()) ?? null}
            onChange={(c) => set('networkCode', c ?? '')}
            error={errors['networkCode']}
          />
          {warning?.field === 'networkCode' && <FormatWarning text={warning.message} />}
        </div>
      )}
      {market?.asyncAllowed && (
        <AsyncSwitch testId="phone-async" checked={form.async} onChange={(c) => set('async', c)} error={errors['mode']} />
      )}
      <GeneralError text={errors['general']} />
      <SubmitRow environment={environment} busy={s.busy} label="Verify phone" icon={<IconPhone size={16} />} testId="phone-submit" service={serviceKey.phone(form.country)} />
    </VerifyFormLayout>
  );
}
