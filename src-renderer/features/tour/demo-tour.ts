// The guided tour for demos (issue 23 §3, docs/demo.md): seven steps over the real screens of the demo data —
// dashboard → a failed check and its reason → the delivery timeline → a replay → a finished batch's results → the palette.
// driver.js draws the highlight and the popover; each step first opens its screen's address (app/routes.ts) and
// waits for the element, so the tour points at what is really there. Keyboard: → / ← move, Esc ends; every step
// has a close button (skippable at any point).
import { driver, type DriveStep, type Driver } from 'driver.js';
import 'driver.js/dist/driver.css';
import { call } from '../../client/bridge';
import { paths } from '../../app/routes';
import { useConsole } from '../../app/store';

interface TourStep {
  /** The address to open first (null: stay where the previous step left the console). */
  path: string | null;
  /** The element to point at; the first match. */
  selector: string;
  title: string;
  description: string;
}

/** Waits until `selector` matches (the screen rendered its data), at most `ms`. */
async function waitFor(selector: string, ms = 5000): Promise<Element | null> {
  const end = Date.now() + ms;
  for (;;) {
    const el = document.querySelector(selector);
    if (el) return el;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface TourTargets {
  failedId: string | null;
  webhookId: string | null;
  deliveryId: string | null;
  /** A finished sandbox batch CSV (the demo's payouts file), whose results the batch step opens. */
  batchId: string | null;
}

const COUNT_WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'];

/** The palette's line for the tour, its step count taken from the steps themselves (it said "Six" of seven). */
export function tourSummary(): string {
  const n = tourSteps({ failedId: 'ver_x', webhookId: 'whk_x', deliveryId: 'del_x', batchId: 'job_x' }).length;
  return `${COUNT_WORDS[n] ?? n} steps through the demo data: dashboard, a failed check, deliveries and a replay, batches, the palette`;
}

/** The ids the tour needs from the demo data (sandbox): a failed check, the demo webhook, one of its deliveries, a finished batch. */
async function demoTargets(): Promise<TourTargets> {
  const failed = await call('history:search', { environment: 'sandbox', q: '', status: 'failed', limit: 1, offset: 0 }).catch(() => null);
  const hooks = await call('webhooks:list', { environment: 'sandbox' }).catch(() => null);
  const webhookId = hooks?.data[0]?.id ?? null;
  const deliveries = webhookId ? await call('webhooks:deliveries', { environment: 'sandbox', webhookId }).catch(() => null) : null;
  const batches = await call('batch:list', { limit: 50, offset: 0 }).catch(() => null);
  const batch = batches?.find((b) => b.environment === 'sandbox' && b.status === 'done' && b.resultPath !== null) ?? null;
  return { failedId: failed?.data[0]?.id ?? null, webhookId, deliveryId: deliveries?.data[0]?.id ?? null, batchId: batch?.id ?? null };
}

export function tourSteps(t: TourTargets): TourStep[] {
  const steps: TourStep[] = [
    {
      path: paths.dashboard('30d'),
      selector: '[data-testid="dashboard"]',
      title: 'A month at a glance',
      description: 'Checks by status and corridor, the success rate over answered checks, webhook health. Every number opens the list behind it.',
    },
  ];
  if (t.failedId) {
    steps.push(
      {
        path: paths.history({ status: 'failed' }),
        selector: 'tr[data-status="failed"]',
        title: 'A failed check',
        description: 'History finds any check by id, account or phone number, name or country. Here: only the failed ones.',
      },
      {
        path: paths.verification(t.failedId, { status: 'failed' }),
        selector: '[data-testid="record-provenance"]',
        title: 'Why it failed, and who ran it',
        description: 'The record shows the request exactly as submitted, the answer with its reason code, who ran it and through which door.',
      },
    );
  }
  if (t.webhookId) {
    steps.push({
      path: paths.webhook(t.webhookId),
      selector: '[data-testid^="delivery-summary-"]',
      title: 'Signed webhooks, every attempt',
      description: 'Each event’s delivery with its attempts: retried after a receiver error, and a failed period recovered on request.',
    });
    if (t.deliveryId) {
      steps.push({
        path: paths.delivery(t.webhookId, t.deliveryId),
        selector: '[data-testid="replay-box"]',
        title: 'Replay to your receiver',
        description: 'Send any delivery again — to the endpoint or to a local receiver — with its original bytes or freshly signed.',
      });
    }
  }
  steps.push(
    t.batchId
      ? {
          path: paths.batchJob(t.batchId),
          selector: '[data-testid="batch-job-view"][data-status="done"] [data-testid="batch-reasons"]',
          title: 'Batch results',
          description:
            'A payouts file checked as a batch CSV: every row against the routing directory, why the invalid ones failed, and the results and the invalid rows to download.',
        }
      : {
          path: paths.routing('history'),
          selector: '[data-testid="batch-history-table"], [data-testid="batch-history-empty"]',
          title: 'Batch results',
          description: 'Routing CSV files of any size are checked here; each batch keeps its results and the invalid rows to download.',
        },
    {
      path: null,
      selector: '[data-testid="palette-open"]',
      title: 'Everything from the keyboard',
      description: 'Ctrl/⌘ K opens the palette: pages, fixtures, ids (ver_…, del_…, whk_…). Alt + a digit jumps to a page.',
    },
  );
  return steps;
}

let active: Driver | null = null;

/** Starts the tour (in the sandbox, where the demo data lives); `navigate` is the router's. */
export async function startDemoTour(navigate: (to: string) => void): Promise<void> {
  active?.destroy();
  const ui = useConsole.getState();
  if (ui.environment !== 'sandbox') ui.requestEnvironment('sandbox');
  const steps = tourSteps(await demoTargets());
  const show = async (i: number) => {
    const s = steps[i];
    if (!s || !active) return;
    if (s.path) navigate(s.path);
    await waitFor(s.selector);
    active.moveTo(i);
  };
  const driveSteps: DriveStep[] = steps.map((s, i) => ({
    element: () => document.querySelector(s.selector) ?? document.body,
    popover: {
      title: s.title,
      description: s.description,
      onNextClick: () => void (i + 1 < steps.length ? show(i + 1) : active?.destroy()),
      onPrevClick: () => void show(i - 1),
    },
  }));
  active = driver({
    steps: driveSteps,
    showProgress: true,
    allowKeyboardControl: true,
    // No transition: a key pressed during one would be ignored, and the tour is driven from the keyboard.
    animate: false,
    nextBtnText: 'Next →',
    prevBtnText: '← Back',
    doneBtnText: 'Done',
    popoverClass: 'vc-tour',
    onDestroyed: () => {
      active = null;
    },
  });
  // The first step opens its own screen too.
  if (steps[0]?.path) navigate(steps[0].path);
  await waitFor(steps[0]!.selector);
  active.drive(0);
}
