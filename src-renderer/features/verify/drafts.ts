// What each Verify tab holds (its inputs, their messages, the result on screen) kept outside the tab, so switching
// to another tab and back finds it as it was: a pending address record keeps its "check for the result" button.
// It lives as long as the Verify page: leaving Verify forgets it (opening Verify from the navigation starts with
// empty forms, and a sign-out leaves nothing behind). In memory only.
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import { create } from 'zustand';
import type { PrefillKind } from '../../app/store';

interface Drafts {
  values: Record<string, unknown>;
  /** Counts the forgettings: a write meant for drafts since forgotten (a late answer) is dropped. */
  generation: number;
}

const useDrafts = create<Drafts>()(() => ({ values: {}, generation: 0 }));

/** The drafts' current generation (forgetDrafts starts a new one). */
export function draftsGeneration(): number {
  return useDrafts.getState().generation;
}

/**
 * Writes one piece of a tab's state, unless the drafts were forgotten since `generation`: a submission that answers
 * after the Verify page went away must not leave its result for the next visit (which starts with empty forms).
 */
export function writeDraft<T>(key: string, next: SetStateAction<T>, initial: T, generation: number): void {
  useDrafts.setState((s) => {
    if (s.generation !== generation) return s;
    const previous = (key in s.values ? s.values[key] : initial) as T;
    const value = typeof next === 'function' ? (next as (p: T) => T)(previous) : next;
    return { values: { ...s.values, [key]: value } };
  });
}

/** `useState`, but the value outlives the tab: kept under the tab's kind and the name of the piece of state. */
export function useDraft<T>(kind: PrefillKind, name: string, initial: T): [T, Dispatch<SetStateAction<T>>] {
  const key = `${kind}:${name}`;
  const has = useDrafts((s) => key in s.values);
  const stored = useDrafts((s) => s.values[key]) as T;
  // The generation this tab was shown in: its setter, still called by a request in flight, writes to it only.
  const generation = useDrafts((s) => s.generation);
  const set = useCallback<Dispatch<SetStateAction<T>>>(
    (next) => writeDraft(key, next, initial, generation),
    // `initial` is read only before the first write, so a new literal on each render changes nothing.
    [key, generation],
  );
  return [has ? stored : initial, set];
}

/** Forgets every tab's inputs and results (the Verify page calls it when it goes away). */
export function forgetDrafts(): void {
  useDrafts.setState((s) => ({ values: {}, generation: s.generation + 1 }));
}
