// Turns the bank-account form into an API request, following the corridor row, and maps validation
// results onto form fields. Kept free of React so the mapping is easy to reason about (and to test).
import { effectiveRules, getCorridor, type AccountRequestLike, type FormatFailure } from '../../../src-shared/corridors';

export interface AccountForm {
  country: string;
  accountNumber: string;
  bankCode: string;
  accountName: string;
  accountHolderType: 'INDIVIDUAL' | 'BUSINESS';
  identifierType: string;
  identifierValue: string;
  currency: string;
  async: boolean;
}

export const EMPTY_FORM: AccountForm = {
  country: 'NG',
  accountNumber: '',
  bankCode: '',
  accountName: '',
  accountHolderType: 'INDIVIDUAL',
  identifierType: '',
  identifierValue: '',
  currency: '',
  async: false,
};

export type FormField = keyof AccountForm | 'identifiers' | 'mode';

/** Which inputs the corridor uses; the form shows exactly these. */
export function visibleFields(form: AccountForm) {
  const corridor = getCorridor(form.country);
  if (!corridor) return null;
  const holderType = corridor.accountHolderTypeRequired ? form.accountHolderType : undefined;
  const rules = effectiveRules(corridor, holderType);
  return {
    corridor,
    rules,
    bankCode: rules.bankCode.format !== 'none',
    accountName: corridor.accountNameRequired,
    accountHolderType: corridor.accountHolderTypeRequired,
    identifier: rules.identifier,
    async: corridor.asyncAllowed,
  };
}

export function toRequest(form: AccountForm): AccountRequestLike {
  const v = visibleFields(form);
  const req: AccountRequestLike = { country: form.country, accountNumber: form.accountNumber.trim() };
  if (!v) return req;
  if (v.bankCode && form.bankCode.trim()) req.bankCode = form.bankCode.trim();
  if (v.accountName && form.accountName.trim()) req.accountName = form.accountName.trim();
  if (v.accountHolderType) req.accountHolderType = form.accountHolderType;
  if (v.identifier && form.identifierValue.trim()) {
    req.identifiers = [{ type: form.identifierType || v.identifier.types[0] || '', value: form.identifierValue.trim() }];
  }
  if (form.currency.trim()) req.currency = form.currency.trim().toUpperCase();
  if (v.async && form.async) req.mode = 'async';
  return req;
}

/** Fills the form from a sandbox fixture's request body; unknown keys are ignored. */
export function fromFixture(request: Record<string, unknown>): AccountForm {
  const str = (k: string) => (typeof request[k] === 'string' ? (request[k] as string) : '');
  const ids = Array.isArray(request['identifiers']) ? (request['identifiers'] as { type?: unknown; value?: unknown }[]) : [];
  const first = ids[0];
  return {
    ...EMPTY_FORM,
    country: str('country').toUpperCase() || EMPTY_FORM.country,
    accountNumber: str('accountNumber'),
    bankCode: str('bankCode'),
    accountName: str('accountName'),
    accountHolderType: request['accountHolderType'] === 'BUSINESS' ? 'BUSINESS' : 'INDIVIDUAL',
    identifierType: typeof first?.type === 'string' ? first.type : '',
    identifierValue: typeof first?.value === 'string' ? first.value : '',
    currency: str('currency'),
    async: request['mode'] === 'async',
  };
}

/** Layer-2 failures name no field, so attach each to the input that caused it. */
export function formatFailureField(f: FormatFailure): FormField {
  switch (f.code) {
    case 'INVALID_ACCOUNT_NUMBER':
      return 'accountNumber';
    case 'INVALID_BANK_CODE':
      return 'bankCode';
    case 'VERIFICATION_FAILED':
      return 'identifierValue';
  }
}

/** Maps a field name from layer-1 issues or server details (`request.accountNumber`) to a form field. */
export function issueField(field: string): FormField | null {
  const f = field.replace(/^request\./, '').split('.')[0] ?? field;
  if (f === 'identifiers') return 'identifierValue';
  if (f === 'mode') return 'async';
  const direct: FormField[] = ['country', 'accountNumber', 'bankCode', 'accountName', 'accountHolderType', 'currency'];
  return direct.find((d) => d === f) ?? null;
}
