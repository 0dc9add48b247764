// UI state shared across pages: the environment the console acts in (persisted, so a restart never silently
// flips an analyst from live back to sandbox or the reverse), the current section, and the one-shot filter a
// dashboard link hands to the list it opens.
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { Environment } from '../../src-shared/schemas/common';

export const SECTIONS = ['dashboard', 'verify', 'history', 'keys', 'webhooks', 'routing', 'wallet', 'providers', 'settings'] as const;
export type Section = (typeof SECTIONS)[number];

/** The History filters a link may preset (the dashboard's bars and tiles); the page's own Clear still clears them. */
export interface HistoryFilter {
  status?: string;
  country?: string;
  /** A date (YYYY-MM-DD, UTC day as the service reads it). */
  from?: string;
}

interface ConsoleState {
  environment: Environment;
  section: Section;
  historyFilter: HistoryFilter | null;
  /** True while the "switch to live?" confirmation is on screen. */
  confirmingLive: boolean;
  setEnvironment(environment: Environment): void;
  /** Sandbox switches at once; live asks first, since every live check reaches a real provider and is charged. */
  requestEnvironment(environment: Environment): void;
  resolveLive(confirmed: boolean): void;
  /** Opening a section by hand starts its lists unfiltered. */
  setSection(section: Section): void;
  openHistory(filter: HistoryFilter): void;
}

export const useConsole = create<ConsoleState>()(
  persist(
    (set) => ({
      environment: 'sandbox',
      section: 'dashboard',
      historyFilter: null,
      confirmingLive: false,
      setEnvironment: (environment) => set({ environment, confirmingLive: false }),
      requestEnvironment: (environment) => set((s) => (environment === 'live' && s.environment !== 'live' ? { confirmingLive: true } : { environment })),
      resolveLive: (confirmed) => set(confirmed ? { environment: 'live', confirmingLive: false } : { confirmingLive: false }),
      setSection: (section) => set({ section, historyFilter: null }),
      openHistory: (filter) => set({ section: 'history', historyFilter: filter }),
    }),
    { name: 'vc-console', partialize: (s) => ({ environment: s.environment, section: s.section }) },
  ),
);
