// A page's title and its actions. The environment is named once, by the header's badge and the window's colour
// frame (issue 13 §4), so the title carries no badge of its own.
import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';

export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  return (
    <Group justify="space-between" wrap="wrap" gap="sm">
      <Title order={2}>{title}</Title>
      {actions}
    </Group>
  );
}
