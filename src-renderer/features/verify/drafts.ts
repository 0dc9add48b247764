// What each Verify tab holds (its inputs, their messages, the result on screen) kept outside the tab, so switching
// to another tab and back finds it as it was: a pending address record keeps its "check for the result" button.
// It lives as long as the Verify page: leaving Verify forgets it (opening Verify from the navigation starts with
// empty forms, and a sign-out leaves nothing behind). In memory only.
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import { create } from 'zustand';
import type { PrefillKind } from '../../app/store';

interface Drafts {
  values: Record<string, unknown>;
}

const useDrafts = create<Drafts>()(() => ({ values: {} }));

/** `useState`, but the value outlives the tab: kept under the tab's kind and the name of the piece of state. */
export function useDraft<T>(kind: PrefillKind, name: string, initial: T): [T, Dispatch<SetStateAction<T>>] {
  const key = `${kind}:${name}`;
  const has = useDrafts((s) => key in s.values);
  const stored = useDrafts((s) => s.values[key]) as T;
  const set = useCallback<Dispatch<SetStateAction<T>>>(
    (next) =>
      useDrafts.setState((s) => {
        const previous = (key in s.values ? s.values[key] : initial) as T;
        const value = typeof next === 'function' ? (next as (p: T) => T)(previous) : next;
        return { values: { ...s.values, [key]: value } };
      }),
    // `initial` is read only before the first write, so a new literal on each render changes nothing.
    [key],
  );
  return [has ? stored : initial, set];
}

/** Forgets every tab's inputs and results (the Verify page calls it when it goes away). */
export function forgetDrafts(): void {
  useDrafts.setState({ values: {} });
}
