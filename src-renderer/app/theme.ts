// The environment decides the accent: sandbox is teal, live is red, so the two can never be confused.
import { createTheme } from '@mantine/core';
import type { Environment } from '../../src-shared/schemas/common';

export const ENV_COLOR: Record<Environment, string> = { sandbox: 'teal', live: 'red' };

export function themeFor(environment: Environment) {
  return createTheme({
    primaryColor: ENV_COLOR[environment],
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    defaultRadius: 'sm',
  });
}
