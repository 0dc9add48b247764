// The guided tour for demos (issue 23 §3, docs/demo.md): seven steps over the real screens of the demo data (never
// the user's own records; without demo data it offers to load it) —
// dashboard → a failed check and its reason → the delivery timeline → a replay → a finished batch's results → the palette.
// driver.js draws the highlight and the popover; each step first opens its screen's address (app/routes.ts) and
// waits for the element, so the tour points at what is really there. Keyboard: → / ← move, Esc ends; every step
// has a close button (skippable at any point).
import { driver, type DriveStep, type Driver } from 'driver.js';
import 'driver.js/dist/driver.css';
import { notifications } from '@mantine/notifications';
import { call } from '../../client/bridge';
import type { DemoTourTargets } from '../../../src-shared/channels-demo';
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

/** A frame, or 50 ms where frames are not drawn (a hidden window), whichever comes first. */
const nextFrame = () =>
  new Promise<void>((r) => {
    requestAnimationFrame(() => r());
    setTimeout(r, 50);
  });

/** How long the target's box must stay put before the highlight is measured (a drawer's slide takes ~200 ms). */
const STILL_MS = 120;

/**
 * Waits until the element of `selector` has stopped moving: no transition or animation running on it or around it
 * (a drawer sliding in) and its box unchanged for STILL_MS, at most `ms`. Measured earlier, the highlight's cut-out
 * landed where the drawer was mid-slide (x ≈ 1180 for a target that came to rest at 636), over an empty area.
 */
async function waitUntilStill(selector: string, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  let last = '';
  let since = Date.now();
  while (Date.now() < end) {
    await nextFrame();
    const el = document.querySelector(selector);
    if (!el) return;
    const r = el.getBoundingClientRect();
    const box = `${r.x},${r.y},${r.width},${r.height}`;
    if (box !== last) {
      last = box;
      since = Date.now();
      continue;
    }
    const moving = document.getAnimations().some((a) => {
      const target = a.effect instanceof KeyframeEffect ? a.effect.target : null;
      return a.playState === 'running' && target !== null && target.contains(el);
    });
    if (!moving && Date.now() - since >= STILL_MS) return;
  }
}

/** What the tour opens of the demo data: `demo:status`'s `tour` (src-shared/channels-demo.ts, DemoTourSchema). */
export type TourTargets = DemoTourTargets;

const COUNT_WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'];

/** The palette's line for the tour, its step count taken from the steps themselves (it said "Six" of seven). */
export function tourSummary(): string {
  const n = tourSteps({ failedId: 'ver_x', webhookId: 'whk_x', deliveryId: 'del_x', batchId: 'job_x' }).length;
  return `${COUNT_WORDS[n] ?? n} steps through the demo data (Settings › Demo data loads it): dashboard, a failed check, deliveries and a replay, batches, the palette`;
}

/**
 * The ids the tour needs from the demo data, or null when there is none: the service reads them from its demo marks
 * (`demo:status`'s `tour`, from `demo_records`), so a check, a webhook or a batch of the user's is never presented as
 * the demo's, whenever it was made. (The console used to guess them from the demo webhook's address and time span,
 * which took a failed check the user made during the story's days for the demo's.)
 */
async function demoTargets(): Promise<TourTargets | null> {
  const status = await call('demo:status', {}).catch(() => null);
  return status?.present && status.tour ? status.tour : null;
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

/** The note shown instead of a tour over the user's own records when the sandbox holds no demo data. */
export const NO_DEMO_DATA = 'The tour walks through the demo data, and the sandbox holds none. Load it here (Settings › Demo data › Load demo data; an admin can), then take the tour.';

/**
 * Starts the tour (in the sandbox, where the demo data lives); `navigate` is the router's. Without demo data there is
 * nothing to tour: it opens Settings, where the data is loaded, and says so.
 */
export async function startDemoTour(navigate: (to: string) => void): Promise<void> {
  active?.destroy();
  const targets = await demoTargets();
  if (!targets) {
    navigate(paths.section('settings'));
    notifications.show({ id: 'demo-tour', color: 'grape', title: 'No demo data to tour', message: NO_DEMO_DATA, autoClose: 12_000 });
    (await waitFor('[data-testid="demo-panel"]', 2000))?.scrollIntoView({ block: 'center' });
    return;
  }
  const ui = useConsole.getState();
  if (ui.environment !== 'sandbox') ui.requestEnvironment('sandbox');
  const steps = tourSteps(targets);
  const show = async (i: number) => {
    const s = steps[i];
    if (!s || !active) return;
    if (s.path) navigate(s.path);
    await waitFor(s.selector);
    await waitUntilStill(s.selector);
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
  await waitUntilStill(steps[0]!.selector);
  active.drive(0);
}
