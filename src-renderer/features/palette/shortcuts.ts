// The console's keyboard shortcuts, in one list that the hotkeys, the palette's hints and the "Keyboard shortcuts"
// modal all read, so a shortcut cannot be shown that does not work or the reverse.
export interface NavEntry<S extends string = string> {
  section: S;
  label: string;
}

export interface Shortcut {
  /** The @mantine/hooks hotkey (physical keys, so Alt+digit works on every layout and on macOS). */
  hotkey: string;
  /** As shown to the user. */
  keys: string[];
  label: string;
}

/** Alt+1…Alt+9 open the first nine pages in navigation order; pages past the ninth are reached through the palette. */
export function navShortcut(index: number): Shortcut | null {
  if (index < 0 || index > 8) return null;
  return { hotkey: `alt+digit${index + 1}`, keys: ['Alt', String(index + 1)], label: '' };
}

export const PALETTE_SHORTCUT: Shortcut = { hotkey: 'mod+K', keys: ['Ctrl/⌘', 'K'], label: 'Open the command palette' };
export const ENV_SHORTCUT: Shortcut = { hotkey: 'alt+e', keys: ['Alt', 'E'], label: 'Switch environment (live asks first)' };
export const HELP_SHORTCUT: Shortcut = { hotkey: 'shift+slash', keys: ['?'], label: 'Show keyboard shortcuts' };

export function allShortcuts(nav: readonly NavEntry[]): Shortcut[] {
  const pages = nav.flatMap((n, i) => {
    const s = navShortcut(i);
    return s ? [{ ...s, label: `Go to ${n.label}` }] : [];
  });
  return [PALETTE_SHORTCUT, ...pages, ENV_SHORTCUT, HELP_SHORTCUT];
}
