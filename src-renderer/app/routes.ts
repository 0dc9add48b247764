// Every screen's address (issue 13 §2, docs/dashboard.md "Addresses"). The console uses hash history
// (`#/history?status=failed`), which works unchanged under the web console's /console/ and Electron's app://console/
// protocol: the server only ever serves index.html, and reload or a new tab lands on the same screen.
// Builders here are the only place that spells a path, so links, the palette, the dashboard and the pages agree.
import { SECTIONS, PREFILL_KINDS, type HistoryFilter, type PrefillKind, type Section } from './store';

export const ROUTING_TABS = ['check', 'batch', 'history', 'directory'] as const;
export type RoutingTab = (typeof ROUTING_TABS)[number];

export const DELIVERY_FILTERS = ['pending', 'success', 'failed'] as const;
export type DeliveryFilter = (typeof DELIVERY_FILTERS)[number];

/** The History filters an address carries, in the order they appear in it. */
export const HISTORY_FILTER_KEYS = ['q', 'type', 'status', 'country', 'from', 'to'] as const;
/** History's filters and its page as the address carries them (page 1 is left out). */
export type HistoryUrlFilter = HistoryFilter & { type?: string; to?: string; page?: number };

function query(params: Record<string, string | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

const enc = encodeURIComponent;

/** The Webhooks list's filters as the address carries them. */
export interface WebhookListFilter {
  status?: string | null;
  event?: string | null;
  /** The list's page (1 is left out of the address). */
  page?: number | null;
}

/** The list's page as the address says it: digits only, 1 when absent or anything else. */
export function listPageOf(raw: string | null): number {
  return raw !== null && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : 1;
}

const pageParam = (page: number | null | undefined): string | undefined => (page && page > 1 ? String(page) : undefined);

/** The router state of a navigation from the sections menu (console-shell.tsx): isMenuNavigation reads it. */
export const MENU_NAVIGATION = { menu: true } as const;

export function isMenuNavigation(state: unknown): boolean {
  return typeof state === 'object' && state !== null && (state as { menu?: unknown }).menu === true;
}

export const paths = {
  section: (s: Section): string => `/${s}`,
  dashboard: (period?: string): string => `/dashboard${query({ period: period === 'today' ? undefined : period })}`,
  verify: (kind: PrefillKind = 'account'): string => `/verify/${kind}`,
  history: (filter: HistoryUrlFilter = {}): string =>
    `/history${query({ ...Object.fromEntries(HISTORY_FILTER_KEYS.map((k) => [k, filter[k]])), page: pageParam(filter.page) })}`,
  verification: (id: string, filter: HistoryUrlFilter = {}): string => `/history/${enc(id)}${paths.history(filter).slice('/history'.length)}`,
  webhooks: (filter: WebhookListFilter = {}): string => `/webhooks${query({ status: filter.status, event: filter.event, page: pageParam(filter.page) })}`,
  // A selected webhook (and its open delivery) keeps the list's filters and page, so the list stays as it was beside
  // it and closing the selection returns to it.
  webhook: (id: string, deliveries?: DeliveryFilter | null, list: WebhookListFilter = {}): string =>
    `/webhooks/${enc(id)}${query({ status: list.status, event: list.event, page: pageParam(list.page), deliveries })}`,
  delivery: (webhookId: string, deliveryId: string, deliveries?: DeliveryFilter | null, list: WebhookListFilter = {}): string =>
    `/webhooks/${enc(webhookId)}/deliveries/${enc(deliveryId)}${query({ status: list.status, event: list.event, page: pageParam(list.page), deliveries })}`,
  routing: (tab: RoutingTab = 'check'): string => `/routing/${tab}`,
  batchJob: (jobId: string): string => `/routing/batch/${enc(jobId)}`,
};

/** The section an address belongs to; null for an address no screen answers. */
export function sectionOf(pathname: string): Section | null {
  const first = pathname.split('/').filter(Boolean)[0] ?? 'dashboard';
  return (SECTIONS as readonly string[]).includes(first) ? (first as Section) : null;
}

export function isVerifyKind(v: string | undefined | null): v is PrefillKind {
  return (PREFILL_KINDS as readonly (string | null | undefined)[]).includes(v);
}

export function isRoutingTab(v: string | undefined | null): v is RoutingTab {
  return (ROUTING_TABS as readonly (string | null | undefined)[]).includes(v);
}

export function deliveryFilterOf(v: string | null): DeliveryFilter | null {
  return (DELIVERY_FILTERS as readonly (string | null)[]).includes(v) ? (v as DeliveryFilter) : null;
}

/** The History filters in an address's query; unknown keys are ignored. */
export function historyFilterOf(search: URLSearchParams): HistoryUrlFilter {
  const f: Record<string, string> = {};
  for (const k of HISTORY_FILTER_KEYS) {
    const v = search.get(k);
    if (v) f[k] = v;
  }
  const page = listPageOf(search.get('page'));
  return page > 1 ? { ...f, page } : f;
}
