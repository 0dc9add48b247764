// The submit-and-poll cycle the verify tabs share: one result at a time, server field errors handed back to the
// form, a refusal (a live check without a provider, a suspended wallet…) shown in the result panel as well as in a
// toast, the toast of a failed attempt cleared when the next one succeeds, and a pending check turned final by its event.
import { useCallback, useEffect, useState } from 'react';
import { useLiveVersion } from '../../app/live-store';
import type { Environment } from '../../../src-shared/schemas/common';
import { ConsoleError, call } from '../../client/bridge';
import { clearError, errorText, notifyError } from '../../app/notify';
import type { PartialRecord } from './verification-result';
import type { PrefillKind } from '../../app/store';
import { useDraft } from './drafts';

export type Submission = ReturnType<typeof useSubmission>;

/** A request the service refused: nothing was recorded or charged, and the panel says why. */
export interface Refusal {
  code: string;
  text: string;
}

const TOAST = 'verify-submission';

/** `kind` names the tab: its result and refusal are kept while another tab is shown (drafts.ts). */
export function useSubmission(environment: Environment, kind: PrefillKind) {
  const [result, setResult] = useDraft<PartialRecord | null>(kind, 'result', null);
  const [refusal, setRefusal] = useDraft<Refusal | null>(kind, 'refusal', null);
  // Kept with the tab's drafts: back on a tab whose check is still in flight, Submit stays off (it could send twice).
  const [busy, setBusy] = useDraft<boolean>(kind, 'busy', false);
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
  }, [setResult, setRefusal, setBusy]);

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
  }, [environment, result, setResult]);

  // A pending check turns final by itself: its completion event re-fetches the record (docs/console-live.md).
  // The event may come before the 202 was shown; its version is kept, so the fetch still happens once shown.
  const pendingId = result?.status === 'pending' ? result.id : null;
  const version = useLiveVersion(pendingId ? `verification:${pendingId}` : null);
  useEffect(() => {
    if (!pendingId || version === 0) return;
    let current = true;
    call('verify:get', { environment, id: pendingId })
      .then((r) => {
        if (current) setResult((shown) => (shown?.id === r.id ? r : shown));
      })
      .catch(() => {
        // The manual "Check again" still works and reports its own errors.
      });
    return () => {
      current = false;
    };
  }, [environment, pendingId, version, setResult]);

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
