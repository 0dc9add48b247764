// UI state shared across pages: the environment the console acts in (persisted, so a restart never silently
// flips an analyst from live back to sandbox or the reverse), and the one-shot hand-overs a link gives the page it
// opens (a History filter from the address, a Verify form prefilled from a fixture). Where the console is lives in
// the address (app/routes.ts), not here.
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { Environment } from '../../src-shared/schemas/common';

export const SECTIONS = ['dashboard', 'verify', 'history', 'keys', 'webhooks', 'routing', 'wallet', 'providers', 'audit', 'settings'] as const;
export type Section = (typeof SECTIONS)[number];

/** The History filters a link may preset (the dashboard's bars and tiles); the page's own Clear still clears them. */
export interface HistoryFilter {
  status?: string;
  country?: string;
  /** A date (YYYY-MM-DD, UTC day as the service reads it). */
  from?: string;
  /** Search text (ids, identifier prefixes, names, country codes). */
  q?: string;
}


export const PREFILL_KINDS = ['account', 'phone', 'identity', 'face', 'address'] as const;
export type PrefillKind = (typeof PREFILL_KINDS)[number];

/** A request the Verify page opens with, on the tab of its kind; nothing runs until the user submits. */
export interface VerifyPrefill {
  kind: PrefillKind;
  request: Record<string, unknown>;
  /** What the request is, for the note above the form (e.g. the fixture's description). */
  label?: string;
}

interface ConsoleState {
  environment: Environment;
  verifyPrefill: VerifyPrefill | null;
  /** True while the "switch to live?" confirmation is on screen. */
  confirmingLive: boolean;
  setEnvironment(environment: Environment): void;
  /** Sandbox switches at once; live asks first, since every live check reaches a real provider and is charged. */
  requestEnvironment(environment: Environment): void;
  resolveLive(confirmed: boolean): void;
  /**
   * An address to open once the console is in `environment` (a palette id or an audit target of the other
   * environment): nothing moves until the switch is made, live asking first as always; declining forgets it, so
   * the console stays where it was. OpenAfterSwitch (environment.tsx) navigates once the environment matches.
   */
  pendingOpen: { environment: Environment; path: string; replace?: boolean } | null;
  /** `replace`: the address opened takes the current entry's place (a link that named its environment). */
  openIn(environment: Environment, path: string, o?: { replace?: boolean }): void;
  clearPendingOpen(): void;
  openVerify(prefill: VerifyPrefill): void;
  /** Hands the prefill to the tab of its kind once and forgets it; null when there is none for that kind. */
  takeVerifyPrefill(kind: PrefillKind): VerifyPrefill | null;
}

export const useConsole = create<ConsoleState>()(
  persist(
    (set, get) => ({
      environment: 'sandbox',
      verifyPrefill: null,
      confirmingLive: false,
      setEnvironment: (environment) => set({ environment, confirmingLive: false }),
      requestEnvironment: (environment) => set((s) => (environment === 'live' && s.environment !== 'live' ? { confirmingLive: true } : { environment })),
      resolveLive: (confirmed) => set(confirmed ? { environment: 'live', confirmingLive: false } : { confirmingLive: false, pendingOpen: null }),
      pendingOpen: null,
      openIn: (environment, path, o) => {
        set({ pendingOpen: { environment, path, ...(o?.replace ? { replace: true } : {}) } });
        get().requestEnvironment(environment);
      },
      clearPendingOpen: () => set({ pendingOpen: null }),
      openVerify: (prefill) => set({ verifyPrefill: prefill }),
      takeVerifyPrefill: (kind) => {
        const p = get().verifyPrefill;
        if (!p || p.kind !== kind) return null;
        set({ verifyPrefill: null });
        return p;
      },
    }),
    { name: 'vc-console', partialize: (s) => ({ environment: s.environment }) },
  ),
);
