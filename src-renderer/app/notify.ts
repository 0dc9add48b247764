// One way to tell the user a call failed: the message and, when the service named them, the fields it is about —
// never a stack, and never the generic hint in place of the field. A toast shown under a `key` (by default its
// title and words) replaces the previous one of that key, and `clearError(key)` takes it away once the next attempt
// succeeds, so a stale error never sits beside a fresh success.
import { notifications } from '@mantine/notifications';
import { ConsoleError } from '../client/bridge';

/**
 * The words of a failure: the message, then each field and what is wrong with it; the hint only when no field is named.
 * A string is the console's own sentence (no call failed: e.g. an address naming a webhook that is not there), shown
 * as it is.
 */
export function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  const err = e instanceof ConsoleError ? e : null;
  if (!err) return 'The console hit an unexpected problem. Retry; if it keeps happening, restart the console.';
  if (err.details.length > 0) {
    const fields = err.details.map((d) => `${d.field.replace(/^request\./, '')}: ${d.message}`);
    return [err.message, ...fields].join('\n');
  }
  return [err.message, err.hint].filter(Boolean).join(' — ');
}

/**
 * Shows a failure. Without a `key`, the toast's own words are its key: the same failure again replaces its toast
 * instead of stacking another (repeated refusals piled up over a dialog's submit button, and hovering one pauses
 * its auto-close).
 */
export function notifyError(e: unknown, title = 'Something went wrong', key?: string): void {
  const message = errorText(e);
  const id = key ?? `error:${title}\n${message}`;
  notifications.hide(id);
  notifications.show({ id, color: 'red', title, message, autoClose: 8000, style: { whiteSpace: 'pre-line' as const } });
}

/** Takes away the error toast shown under `key`, if it is still on screen. */
export function clearError(key: string): void {
  notifications.hide(key);
}

export function notifySuccess(message: string, title?: string): void {
  notifications.show({ color: 'green', title, message, autoClose: 4000 });
}
