// What the desktop app says when it cannot start, as plain data (no electron import, so tests check the texts and
// buttons): the data folder held by another service, and the better-sqlite3 binding that cannot load.
import type { MessageBoxOptions } from 'electron';
import type { LockHolder } from '../store/data-folder-lock';

export const BINDING_PROBLEM_TITLE = 'Verification Console cannot open its data';

export interface FolderInUse {
  options: MessageBoxOptions;
  /** Opened in the browser when the user picks the first button; null when there is no console to open. */
  consoleUrl: string | null;
}

/** http(s) on a loopback host only: the one kind of URL the folder-in-use dialog may open in the browser. */
export function isLoopbackHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && !u.username && !u.password;
  } catch {
    return false;
  }
}

/**
 * The dialog for DataFolderLockedError (docs/packaging.md, "Data folder in use"). `message` is the error's full text.
 * Only `vconsole serve` serves a web console; its entry needs a one-time link that only its own terminal has, so the
 * dialog opens the console page and says where the link is (or how to get a new one).
 */
export function folderInUseDialog(message: string, holder: LockHolder | null): FolderInUse {
  const consoleUrl = holder?.door === 'serve' && holder.url && isLoopbackHttpUrl(holder.url) ? `${holder.url}/console/` : null;
  const hint = consoleUrl
    ? `Its web console is at ${consoleUrl}. The browser asks for a one-time link there: use the "Console:" link that ` +
      '`vconsole serve` printed in its terminal when it started (each link works once; restart `vconsole serve` for ' +
      'a new one). Or stop it, then start the desktop app again to use this folder here.'
    : holder?.door === 'electron'
      ? 'The desktop app already runs on this folder: use its window or its tray icon.'
      : 'Stop it, then start the desktop app again.';
  return {
    consoleUrl,
    options: {
      type: 'error',
      title: 'Data folder in use',
      message: 'Another Verification Console service is using this data folder.',
      detail: `${message}\n\n${hint}`,
      buttons: consoleUrl ? ['Open its console in the browser', 'Quit'] : ['Quit'],
      defaultId: 0,
      cancelId: consoleUrl ? 1 : 0,
      noLink: true,
    },
  };
}
