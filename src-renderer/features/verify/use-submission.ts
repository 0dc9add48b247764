// The submit-and-poll cycle the verify tabs share: one result at a time, server field errors handed back to the
// form, a refusal (a live check without a provider, a suspended wallet…) shown in the result panel as well as in a
// toast, and the toast of a failed attempt cleared when the next one succeeds.
import { useCallback, useState } from 'react';
import type { Environment } from '../../../src-shared/schemas/common';
import { ConsoleError, call } from '../../client/bridge';
import { clearError, errorText, notifyError } from '../../app/notify';
import type { PartialRecord } from './verification-result';

export type Submission = ReturnType<typeof useSubmission>;

/** A request the service refused: nothing was recorded or charged, and the panel says why. */
export interface Refusal {
  code: string;
  text: string;
}

const TOAST = 'verify-submission';

export function useSubmission(environment: Environment) {
  const [result, setResult] = useState<PartialRecord | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const [polling, setPolling] = useState(false);

  /** Runs `send`; on a refusal with field details, gives them to `onDetails` so they land on the inputs. */
  const submit = useCallback(async (send: () => Promise<PartialRecord>, onDetails: (d: { field: string; message: string }[]) => void) => {
    // A result left on screen next to edited inputs would read as the answer for them.
    setResult(null);
    setRefusal(null);
    setBusy(true);
    try {
      setResult(await send());
      clearError(TOAST);
    } catch (err) {
      if (err instanceof ConsoleError && err.details.length > 0) onDetails(err.details);
      setRefusal({ code: err instanceof ConsoleError ? err.code : 'CONSOLE_ERROR', text: errorText(err) });
      notifyError(err, 'Verification was not accepted', TOAST);
    } finally {
      setBusy(false);
    }
  }, []);

  const poll = useCallback(async () => {
    if (!result) return;
    setPolling(true);
    try {
      setResult(await call('verify:get', { environment, id: result.id }));
      clearError(TOAST);
    } catch (err) {
      notifyError(err, 'Could not fetch the verification', TOAST);
    } finally {
      setPolling(false);
    }
  }, [environment, result]);

  return {
    result,
    refusal,
    busy,
    polling,
    submit,
    poll,
    clear: () => {
      setResult(null);
      setRefusal(null);
    },
  };
}
