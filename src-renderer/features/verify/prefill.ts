// Hands a Verify tab the request a link opened the page with (the palette's "open in Verify"), once: the tab
// fills its form from it exactly as from its own fixture menu, and nothing is submitted.
import { useEffect, useRef } from 'react';
import { useConsole, type PrefillKind } from '../../app/store';

export function useVerifyPrefill(kind: PrefillKind, apply: (request: Record<string, unknown>) => void): void {
  const waiting = useConsole((s) => s.verifyPrefill?.kind === kind);
  // The latest form setter without re-running the effect on every render.
  const applyRef = useRef(apply);
  useEffect(() => {
    applyRef.current = apply;
  });
  useEffect(() => {
    if (!waiting) return;
    const p = useConsole.getState().takeVerifyPrefill(kind);
    if (p) applyRef.current(p.request);
  }, [waiting, kind]);
}
