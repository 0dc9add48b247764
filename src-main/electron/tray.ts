// The tray icon and the application menu: both show the API listener's state (URL, or why it is not listening)
// with Open console, Copy API URL and Quit. A desktop without a tray area still has the menu.
import { clipboard, dialog, Menu, nativeImage, Tray, type BrowserWindow, type NativeImage } from 'electron';
import { appIconPng, templateIconPng } from './png';
import { applicationMenuTemplate, LISTENER_HINT, trayMenuTemplate, trayTooltip, type ListenerState, type TrayActions, type TrayWebhooks } from './tray-menu';

export interface ShellMenus {
  update(state: ListenerState): void;
  /** Failed webhooks: a first menu item that opens the newest, the tooltip, and the dimmed (attention) icon. */
  setWebhooks(webhooks: TrayWebhooks | null): void;
  destroy(): void;
}

export function listenerErrorDialog(win: BrowserWindow | null, state: ListenerState): void {
  if (state.kind === 'listening') return;
  const options = {
    type: 'warning' as const,
    title: 'API listener',
    message: state.message,
    detail: LISTENER_HINT,
    buttons: ['OK'],
  };
  // Non-blocking: the window stays usable behind the message.
  void (win ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options));
}

/** The tray icon: on macOS a 16 px template image with its @2x representation; elsewhere the coloured mark. */
export function trayIcon(dim: boolean, platform: string = process.platform): NativeImage {
  if (platform !== 'darwin') return nativeImage.createFromBuffer(appIconPng(32, dim));
  const icon = nativeImage.createFromBuffer(templateIconPng(16, dim), { scaleFactor: 1 });
  icon.addRepresentation({ scaleFactor: 2, buffer: templateIconPng(32, dim) });
  icon.setTemplateImage(true);
  return icon;
}

export function createShellMenus(initial: ListenerState, actions: Omit<TrayActions, 'copyApiUrl'>, o: { packaged: boolean }): ShellMenus {
  const all: TrayActions = { ...actions, copyApiUrl: (url) => clipboard.writeText(url) };
  let tray: Tray | null = null;
  let current = initial;
  let webhooks: TrayWebhooks | null = null;
  const render = (state: ListenerState) => {
    current = state;
    const template = trayMenuTemplate(state, all, webhooks);
    // The application menu carries the same items under "Service", plus the standard roles (tray-menu.ts).
    Menu.setApplicationMenu(Menu.buildFromTemplate(applicationMenuTemplate(template, { platform: process.platform, packaged: o.packaged })));
    try {
      const icon = trayIcon(state.kind !== 'listening' || !!webhooks?.label);
      if (!tray) tray = new Tray(icon);
      else tray.setImage(icon);
      tray.setToolTip(trayTooltip(state, webhooks));
      tray.setContextMenu(Menu.buildFromTemplate(template));
    } catch {
      // No tray on this desktop (some Linux sessions): the application menu shows the same state.
      tray = null;
    }
  };
  render(initial);
  return {
    update: render,
    setWebhooks: (w) => {
      webhooks = w;
      render(current);
    },
    destroy: () => {
      tray?.destroy();
      tray = null;
    },
  };
}
