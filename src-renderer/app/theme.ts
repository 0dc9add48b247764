// The environment decides the accent: sandbox is teal, live is red, so the two can never be confused.
import { Badge, createTheme, Drawer, Modal, darken, DEFAULT_THEME, luminance, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';
import type { Environment } from '../../src-shared/schemas/common';

export const ENV_COLOR: Record<Environment, string> = { sandbox: 'teal', live: 'red' };

/** WCAG contrast of a colour against white. */
function contrastOnWhite(color: string): number {
  return 1.05 / (luminance(color) + 0.05);
}

/**
 * Mantine's palettes with shade 9 darkened, where it has to be, until white text on it (and it as text on white)
 * reads at WCAG AA (4.5:1, with a little margin). Most shade 9s pass as they are (teal 5.0, red 5.5, blue 6.1), but
 * green-9 is 4.4:1 and orange-9 4.3:1 — the colours of a success and an error (app/format.ts STATUS_COLOR).
 */
export const READABLE_COLORS: Record<string, MantineColorsTuple> = Object.fromEntries(
  Object.entries(DEFAULT_THEME.colors).map(([name, shades]) => {
    let nine = shades[9];
    while (contrastOnWhite(nine) < 4.6) nine = darken(nine, 0.05);
    return [name, [...shades.slice(0, 9), nine] as unknown as MantineColorsTuple];
  }),
);

export function themeFor(environment: Environment) {
  return createTheme({
    primaryColor: ENV_COLOR[environment],
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    defaultRadius: 'sm',
    // Filled colours dark enough for white text at WCAG AA (4.5:1) in both schemes: teal-6 under white text is
    // 2.6:1, teal-9 is 5.0:1 — and every shade 9 passes once READABLE_COLORS has darkened the few that do not
    // (issue 13 §6, checked by axe in e2e/console.layout-a11y.spec.ts, a success result included).
    primaryShade: { light: 9, dark: 9 },
    colors: READABLE_COLORS,
    components: {
      // A badge is a status: in a narrow table cell it keeps its full word ("success", never "SUCC…") and the table
      // scrolls inside its own frame instead (issue 13 §4: tables never lose the status).
      Badge: Badge.extend({ styles: { root: { flexShrink: 0, minWidth: 'max-content' } } }),
      // Every dialog's and drawer's × is a button with a name (Mantine's has none: axe `button-name`, critical).
      Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
      Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    },
  });
}

/** Dimmed text that still reads at AA on the page background of either scheme (Mantine's gray-6 is 3.3:1). */
/**
 * The same for the text of "light" variants (tinted buttons, badges, the active navigation item) in the light
 * scheme: Mantine's shade 9 on shade 1 is about 4.2:1, darkened by 30 % it passes.
 */
export const cssVariablesResolver: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    ...Object.fromEntries(Object.entries(theme.colors).map(([c, shades]) => [`--mantine-color-${c}-light-color`, darken(shades[9], 0.3)])),
    ...filledHover(theme.colors),
  },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)', ...filledHover(theme.colors) },
});

/**
 * A hovered filled button: Mantine goes one shade lighter, and from shade 9 that is shade 8 (teal-8 under white text
 * is 3.7:1, below AA). It goes darker instead, so the text reads at least as well hovered as at rest.
 */
export function filledHover(colors: Record<string, readonly string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(colors).map(([c, shades]) => [`--mantine-color-${c}-filled-hover`, darken(shades[9]!, 0.12)]));
}
