// One way to tell the user a call failed: the message and what to do about it, never a stack.
import { notifications } from '@mantine/notifications';
import { ConsoleError } from '../client/bridge';

export function notifyError(e: unknown, title = 'Something went wrong'): void {
  const err = e instanceof ConsoleError ? e : null;
  const message = err ? err.message : 'The console hit an unexpected problem.';
  const hint = err?.hint ?? (err ? undefined : 'Retry; if it keeps happening, restart the console.');
  const detail = err?.details.length ? err.details.map((d) => `${d.field}: ${d.message}`).join('; ') : undefined;
  notifications.show({
    color: 'red',
    title,
    message: [message, detail, hint].filter(Boolean).join(' — '),
    autoClose: 8000,
  });
}

export function notifySuccess(message: string, title?: string): void {
  notifications.show({ color: 'green', title, message, autoClose: 4000 });
}
