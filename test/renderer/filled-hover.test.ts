// A hovered filled button keeps its white text at WCAG AA (4.5:1): Mantine's hover from shade 9 is shade 8, which is
// below it for most palettes (teal-8 3.7:1); the console's theme darkens shade 9 instead (src-renderer/app/theme.ts).
import { describe, expect, it } from 'vitest';
import { luminance } from '@mantine/core';
import { cssVariablesResolver, READABLE_COLORS, themeFor } from '../../src-renderer/app/theme';
import { DEFAULT_THEME, mergeMantineTheme } from '@mantine/core';

const onWhite = (c: string) => 1.05 / (luminance(c) + 0.05);

describe('filled buttons when hovered', () => {
  it('keep white text at AA in both schemes, for every palette', () => {
    const theme = mergeMantineTheme(DEFAULT_THEME, themeFor('sandbox'));
    const vars = cssVariablesResolver(theme);
    for (const scheme of [vars.light, vars.dark]) {
      for (const color of Object.keys(READABLE_COLORS)) {
        const hover = scheme[`--mantine-color-${color}-filled-hover`];
        expect(hover, color).toBeDefined();
        expect(onWhite(hover!), color).toBeGreaterThanOrEqual(4.5);
      }
    }
    // What it replaces: Mantine's shade 8, below AA for the environments' own colours.
    expect(onWhite(READABLE_COLORS['teal']![8])).toBeLessThan(4.5);
  });
});
