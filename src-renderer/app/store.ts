// UI state shared across pages: the environment the console acts in (persisted, so a restart never silently
// flips an analyst from live back to sandbox or the reverse) and the current section.
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { Environment } from '../../src-shared/schemas/common';

export const SECTIONS = ['dashboard', 'verify', 'history', 'keys', 'webhooks', 'routing', 'wallet', 'settings'] as const;
export type Section = (typeof SECTIONS)[number];

interface ConsoleState {
  environment: Environment;
  section: Section;
  setEnvironment(environment: Environment): void;
  setSection(section: Section): void;
}

export const useConsole = create<ConsoleState>()(
  persist(
    (set) => ({
      environment: 'sandbox',
      section: 'dashboard',
      setEnvironment: (environment) => set({ environment }),
      setSection: (section) => set({ section }),
    }),
    { name: 'vc-console', partialize: (s) => ({ environment: s.environment, section: s.section }) },
  ),
);
